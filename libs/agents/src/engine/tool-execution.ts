import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ConnectorExecutor, OBSERVATION_MAX_CHARS } from '../connectors/connector-executor.js';
import { McpToolExecutor } from '../mcp/mcp-tool-executor.js';
import type { EvalRunOptions } from '../runs/run.entity.js';
import { confirmationRequired, type ResolvedTool } from '../tools/tool-registry.js';
import type { LiveRun } from './live-run.js';

/** How one tool execution went; `full` is stored, `content` is what the PostToolUse hooks and the model get. */
export interface ToolOutcome {
  ok: boolean;
  content: string;
  full: string;
  status?: number;
  error?: string;
  /** An eval run's call that was answered without being sent. */
  simulated: boolean;
}

/** The observation of a simulated call: the case's fixture for the tool (the n-th of a list), else a clear note. */
export function simulatedObservation(
  tool: string,
  fixtures: Record<string, unknown> | undefined,
  index: number,
): string {
  const fixture = fixtures?.[tool];
  const value: unknown = Array.isArray(fixture) ? fixture[Math.min(index, fixture.length - 1)] : fixture;
  if (value === undefined) return `[eval] ${tool} was simulated, not sent`;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Whether an eval run must simulate a call instead of sending it: every write (a connector action's `write`, a
 * built-in tool that writes), every call that would need a human approval, and connector reads when the eval says
 * `reads: "simulated"`. Evals bypass the gate, so this is what keeps them from acting on real systems.
 */
export function mustSimulate(tool: ResolvedTool, args: Record<string, unknown>, options: EvalRunOptions): boolean {
  const write =
    tool.kind === 'connector' ? tool.connector.action.write : tool.kind === 'mcp' ? tool.mcp.write : tool.builtin.write;
  if (write || confirmationRequired(tool, args)) return true;
  return tool.kind !== 'builtin' && options.reads === 'simulated';
}

/** Runs with hooks bypassed are eval runs (or their children): they never send a write, whatever their state says. */
function evalOptionsOf(live: LiveRun): EvalRunOptions | undefined {
  return live.run.state.eval ?? (live.run.hooks === 'bypassed' ? { reads: 'live' } : undefined);
}

/** Runs a call that its PreToolUse hooks let through: a connector request, a built-in tool, or an eval simulation. */
@Injectable()
export class ToolExecution {
  constructor(
    private readonly dataSource: DataSource,
    private readonly connectors: ConnectorExecutor,
    private readonly mcp: McpToolExecutor,
  ) {}

  /**
   * Whether this call will be simulated rather than sent (eval runs only). `asked`: a hook asked for a human
   * approval, which an eval never waits for — the call is simulated as if approved, never sent.
   */
  simulates(live: LiveRun, tool: ResolvedTool, args: Record<string, unknown>, asked = false): boolean {
    const evalOptions = evalOptionsOf(live);
    return evalOptions !== undefined && (asked || mustSimulate(tool, args, evalOptions));
  }

  /** `simulate`: what `simulates` said for this call (the execution mark records it before anything is sent). */
  async execute(
    live: LiveRun,
    callId: string,
    tool: ResolvedTool,
    args: Record<string, unknown>,
    simulate: boolean,
  ): Promise<ToolOutcome> {
    const { run } = live;
    const evalOptions = evalOptionsOf(live);
    if (evalOptions && simulate) {
      const content = simulatedObservation(
        tool.spec.name,
        evalOptions.fixtures,
        await this.earlierCallsOf(run.id, callId, tool.spec.name),
      );
      return { ok: true, content, full: content, simulated: true };
    }
    if (tool.kind === 'connector') {
      const res = await this.connectors.execute(
        tool.connector.connector,
        tool.connector.action,
        args,
        callId,
        live.abort.signal,
      );
      return {
        ok: res.ok,
        content: res.content,
        full: res.fullContent,
        status: res.status,
        error: res.error,
        simulated: false,
      };
    }
    if (tool.kind === 'mcp') return this.mcp.execute(tool.mcp, args, live.abort.signal);
    try {
      const text = await tool.builtin.execute(args, {
        orgId: run.orgId,
        userId: run.userId,
        agentId: run.agentId,
        runId: run.id,
        callId,
        surface: run.surface,
        emit: live.emit,
        signal: live.abort.signal,
        eval: evalOptions,
      });
      return { ok: true, content: text.slice(0, OBSERVATION_MAX_CHARS), full: text, simulated: false };
    } catch (err) {
      if (live.abort.signal.aborted) throw err; // interrupted, not failed: the in-flight rule applies
      return {
        ok: false,
        content: `Error: ${(err as Error).message}`,
        full: '',
        error: (err as Error).message,
        simulated: false,
      };
    }
  }

  /** How many calls of `tool` this run made before this one (which fixture of a list answers it); stable on resume. */
  private async earlierCallsOf(runId: string, callId: string, tool: string): Promise<number> {
    const [row] = await this.dataSource.query<[{ n: number }?]>(
      `SELECT count(*)::int AS n FROM tool_calls c, tool_calls me
        WHERE me.run_id = $1 AND me.call_id = $2 AND c.run_id = $1 AND c.tool = $3
          AND (c.created_at, c.position) < (me.created_at, me.position)`,
      [runId, callId, tool],
    );
    return row?.n ?? 0;
  }
}
