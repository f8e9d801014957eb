import { Injectable } from '@nestjs/common';
import { egressRefusalIn } from '@warden/common';
import { OBSERVATION_MAX_CHARS } from '../connectors/connector-executor.js';
import type { ToolOutcome } from '../engine/tool-execution.js';
import { McpClientPool } from './mcp-client-pool.js';
import { mcpResultText } from './mcp-result.js';
import type { McpServerRecord, McpTool } from './mcp-server.types.js';

const FULL_RESULT_MAX_CHARS = 1024 * 1024;

/**
 * Sends one `tools/call` to an MCP server (after the call passed its hooks) and turns the result into an
 * observation.
 */
@Injectable()
export class McpToolExecutor {
  constructor(private readonly pool: McpClientPool) {}

  async execute(
    tool: McpTool & { record: McpServerRecord },
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<ToolOutcome> {
    let result: Awaited<ReturnType<McpClientPool['callTool']>>;
    try {
      result = await this.pool.callTool(tool.record, tool.tool, args, signal);
    } catch (err) {
      // The run stopped with the call possibly out: not an outcome (the in-flight rule settles it).
      if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('the run was stopped');
      const cause = egressRefusalIn(err) ?? (err as Error);
      const error = `MCP server ${tool.server.name}: ${tool.tool} failed: ${cause.message}`;
      return { ok: false, content: `Error: ${error}`, full: '', error, simulated: false };
    }
    const text = mcpResultText(result as { content?: unknown; structuredContent?: unknown });
    if (result.isError === true) {
      const error = text || `${tool.tool} reported an error`;
      return {
        ok: false,
        content: `Error: ${error}`.slice(0, OBSERVATION_MAX_CHARS),
        full: text.slice(0, FULL_RESULT_MAX_CHARS),
        error,
        simulated: false,
      };
    }
    return {
      ok: true,
      content: text.slice(0, OBSERVATION_MAX_CHARS),
      full: text.slice(0, FULL_RESULT_MAX_CHARS),
      simulated: false,
    };
  }
}
