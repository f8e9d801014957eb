import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { ToolCallMetadata } from '@warden/hooks';
import { evaluateConfirmationCondition } from '../connectors/confirmation-condition.js';
import { buildConnectorRequest } from '../connectors/connector-executor.js';
import { ConnectorsService, type ConnectorTool } from '../connectors/connectors.service.js';
import { globMatches } from '../connectors/tool-name.js';
import type { McpServerRecord, McpTool } from '../mcp/mcp-server.types.js';
import { McpServersService } from '../mcp/mcp-servers.service.js';
import { BuiltinTool } from './builtin-tool.js';

/** A tool offered to the model. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export type ResolvedTool =
  | { kind: 'connector'; spec: ToolSpec; connector: ConnectorTool }
  | { kind: 'builtin'; spec: ToolSpec; builtin: BuiltinTool }
  | { kind: 'mcp'; spec: ToolSpec; mcp: McpTool & { record: McpServerRecord } };

/**
 * Connector tools of the org, the tools of its MCP servers (`<server>__<tool>`), and the built-in tools: every
 * provider, in any module, that extends BuiltinTool.
 */
@Injectable()
export class ToolRegistry implements OnModuleInit {
  private readonly logger = new Logger(ToolRegistry.name);
  private readonly builtins = new Map<string, BuiltinTool>();

  constructor(
    private readonly connectors: ConnectorsService,
    private readonly discovery: DiscoveryService,
    private readonly mcp: McpServersService,
  ) {}

  onModuleInit(): void {
    for (const wrapper of this.discovery.getProviders()) {
      if (wrapper.instance instanceof BuiltinTool) this.register(wrapper.instance);
    }
  }

  private register(tool: BuiltinTool): void {
    if (this.builtins.has(tool.name)) throw new Error(`built-in tool "${tool.name}" is registered twice`);
    this.builtins.set(tool.name, tool);
  }

  builtinNames(): string[] {
    return [...this.builtins.keys()];
  }

  async all(orgId: string): Promise<ResolvedTool[]> {
    const connectorTools = (await this.connectors.tools(orgId)).map((c): ResolvedTool => ({
      kind: 'connector',
      connector: c,
      spec: { name: c.name, description: c.description, parameters: c.parameters },
    }));
    const builtins = [...this.builtins.values()].map((b): ResolvedTool => ({
      kind: 'builtin',
      builtin: b,
      spec: { name: b.name, description: b.description, parameters: b.parameters },
    }));
    const mcpTools = (await this.mcp.tools(orgId)).map((m): ResolvedTool => ({
      kind: 'mcp',
      mcp: m,
      spec: { name: m.name, description: m.description, parameters: m.parameters },
    }));
    return this.unambiguous(orgId, [...connectorTools, ...mcpTools, ...builtins]);
  }

  /**
   * Tools whose name no other tool has. Saves refuse a shared name (ToolNamespaces), but rows from before that rule
   * may share one: such a name resolves to no tool at all rather than to whichever source came first (fail closed).
   */
  private unambiguous(orgId: string, tools: ResolvedTool[]): ResolvedTool[] {
    const count = new Map<string, number>();
    for (const t of tools) count.set(t.spec.name, (count.get(t.spec.name) ?? 0) + 1);
    const shared = [...count].filter(([, n]) => n > 1).map(([name]) => name);
    if (shared.length === 0) return tools;
    this.logger.warn(`org ${orgId}: tools offered by more than one source are withheld: ${shared.join(', ')}`);
    return tools.filter((t) => count.get(t.spec.name) === 1);
  }

  /** The tools an agent may use: every tool matched by one of its `tools` entries (names or globs). */
  async forAgent(orgId: string, patterns: string[]): Promise<ResolvedTool[]> {
    return (await this.all(orgId)).filter((t) => patterns.some((p) => globMatches(p, t.spec.name)));
  }

  /** The `tools` entries that match no tool at all (agent validation). */
  async unknownPatterns(orgId: string, patterns: string[]): Promise<string[]> {
    const names = (await this.all(orgId)).map((t) => t.spec.name);
    return patterns.filter((p) => !names.some((n) => globMatches(p, n)));
  }

  /**
   * Per-call metadata for hooks: confirmation need (CEL over args) — for the given args and, for the gate, as a
   * function of whatever args the hooks leave — write flag, connector details.
   */
  metadataFor(tool: ResolvedTool | undefined, args: Record<string, unknown>): ToolCallMetadata {
    if (!tool) return { requiresConfirmation: false, write: false };
    const confirmationRequiredFor = (a: Record<string, unknown>) => confirmationRequired(tool, a);
    const argsSchema = tool.spec.parameters;
    if (tool.kind === 'builtin')
      return {
        requiresConfirmation: confirmationRequiredFor(args),
        confirmationRequiredFor,
        write: tool.builtin.write,
        argsSchema,
        humanTask: tool.builtin.humanTask,
      };
    if (tool.kind === 'mcp') {
      // The server stands where a connector would: audit rows, rate limits and approval cards name it.
      const { server } = tool.mcp;
      return {
        requiresConfirmation: confirmationRequiredFor(args),
        confirmationRequiredFor,
        write: tool.mcp.write,
        confirmationWhen: tool.mcp.requiresConfirmationWhen,
        argsSchema,
        connector: { id: server.id, name: server.name, action: tool.mcp.tool, method: 'MCP', url: server.url },
        mcp: { server: server.name, tool: tool.mcp.tool },
      };
    }
    const { connector, action } = tool.connector;
    let url = connector.baseUrl + action.path;
    try {
      url = buildConnectorRequest(connector, action, args).url;
    } catch {
      /* path args missing: the call fails later */
    }
    return {
      requiresConfirmation: confirmationRequiredFor(args),
      confirmationRequiredFor,
      write: action.write,
      confirmationWhen: action.requiresConfirmationWhen,
      argsSchema,
      connector: { id: connector.id, name: connector.name, action: action.name, method: action.method, url },
    };
  }
}

/** Whether a call of this tool with these args needs a human approval (CEL failures count as yes). */
export function confirmationRequired(tool: ResolvedTool, args: Record<string, unknown>): boolean {
  if (tool.kind === 'builtin') return tool.builtin.requiresConfirmation(args);
  const action = tool.kind === 'mcp' ? tool.mcp : tool.connector.action;
  return (
    action.requiresConfirmation ||
    (action.requiresConfirmationWhen !== null && evaluateConfirmationCondition(action.requiresConfirmationWhen, args))
  );
}
