import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { checkConfirmationCondition } from '../connectors/confirmation-condition.js';
import { toolNameOf } from '../connectors/tool-name.js';
import type { McpServerRecord, McpTool, McpToolOverride } from './mcp-server.types.js';

const OVERRIDE_KEYS = ['requires_confirmation', 'requires_confirmation_when', 'write'];
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A server's tool as Warden runs it. Annotations are the server's hints, the admin's override wins: a tool is a read
 * only when it says `readOnlyHint: true`. Anything else is a write, and MCP's defaults (`readOnlyHint: false`,
 * `destructiveHint: true`) make a tool without annotations a destructive one: every write needs an approval unless
 * the admin's override says otherwise — a third-party server's `destructiveHint: false` does not decide whether
 * Warden asks.
 */
export function toMcpTool(server: McpServerRecord, tool: Tool): McpTool {
  const override: McpToolOverride = server.toolOverrides[tool.name] ?? {};
  const annotations = {
    readOnlyHint: tool.annotations?.readOnlyHint,
    destructiveHint: tool.annotations?.destructiveHint,
  };
  const write = override.write ?? annotations.readOnlyHint !== true;
  const hasOverride = override.requires_confirmation !== undefined || override.requires_confirmation_when !== undefined;
  return {
    name: toolNameOf(server.name, tool.name),
    tool: tool.name,
    description: tool.description ?? tool.title ?? tool.name,
    parameters: tool.inputSchema,
    server: { id: server.id, name: server.name, url: server.url },
    write,
    requiresConfirmation: hasOverride ? override.requires_confirmation === true : write,
    requiresConfirmationWhen: override.requires_confirmation_when ?? null,
    annotations,
  };
}

/** Every problem of a `tool_overrides` object, each naming its tool and key. */
export function toolOverrideProblems(raw: unknown): string[] {
  if (raw === undefined) return [];
  if (!isObject(raw)) return ['tool_overrides must be an object keyed by tool name'];
  const problems: string[] = [];
  for (const [tool, override] of Object.entries(raw)) {
    const at = `tool_overrides.${tool}`;
    if (!isObject(override)) {
      problems.push(`${at} must be an object`);
      continue;
    }
    for (const key of Object.keys(override))
      if (!OVERRIDE_KEYS.includes(key))
        problems.push(`${at}.${key}: unknown key (expected ${OVERRIDE_KEYS.join(', ')})`);
    if (override.requires_confirmation !== undefined && typeof override.requires_confirmation !== 'boolean')
      problems.push(`${at}.requires_confirmation must be true or false`);
    if (override.write !== undefined && typeof override.write !== 'boolean')
      problems.push(`${at}.write must be true or false`);
    const when = override.requires_confirmation_when;
    if (when !== undefined) {
      const problem = typeof when === 'string' ? checkConfirmationCondition(when) : 'must be a CEL string';
      if (problem) problems.push(`${at}.requires_confirmation_when: ${problem}`);
    }
  }
  return problems;
}
