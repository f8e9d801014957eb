import { Injectable, Logger } from '@nestjs/common';
import {
  AuditTrail,
  SecretBox,
  BadInputError,
  ConflictError,
  egressRefusalIn,
  isUuid,
  NotFoundError,
  secretsFollowProblem,
  type Queryable,
} from '@warden/common';
import { ConfigCache, TransactionRunner } from '@warden/database';
import { McpClientPool } from './mcp-client-pool.js';
import { mcpServerChange } from './mcp-server-audit.js';
import type { McpServerRecord, McpTool, McpToolOverride } from './mcp-server.types.js';
import { McpServersStore, type McpServerWrite } from './mcp-servers.store.js';
import { toMcpTool, toolOverrideProblems } from './mcp-tool-policy.js';
import { ToolNamespaces } from '../tools/tool-namespaces.js';

export interface McpServerInput {
  name: string;
  url: string;
  headers?: Record<string, string>;
  tool_overrides?: Record<string, McpToolOverride>;
}

const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** MCP servers of an org (admin CRUD) and their tools as the runtime offers them: `<server>__<tool>`. */
@Injectable()
export class McpServersService {
  private readonly logger = new Logger(McpServersService.name);

  constructor(
    private readonly store: McpServersStore,
    private readonly pool: McpClientPool,
    private readonly secrets: SecretBox,
    private readonly namespaces: ToolNamespaces,
    private readonly cache: ConfigCache,
    private readonly tx: TransactionRunner,
    private readonly audit: AuditTrail,
  ) {}

  /** The tools of every reachable server of the org; an unreachable server offers none (and is logged). */
  async tools(orgId: string): Promise<Array<McpTool & { record: McpServerRecord }>> {
    const servers = await this.cache.get(orgId, 'mcp_servers', () => this.store.list(orgId));
    const lists = await Promise.all(
      servers.map(async (s) => {
        try {
          return (await this.pool.tools(s)).map((t) => ({ ...toMcpTool(s, t), record: s }));
        } catch {
          return [];
        }
      }),
    );
    return lists.flat();
  }

  async list(orgId: string) {
    return Promise.all((await this.store.list(orgId)).map((s) => this.view(s)));
  }

  async get(orgId: string, id: string) {
    return this.view(await this.find(orgId, id));
  }

  /** Each change and its audit event (actor, diff, which headers changed) commit together. */
  async create(orgId: string, input: McpServerInput, actor: string | null = null) {
    const write = await this.checked(orgId, input, undefined);
    const saved = await this.inTransaction(orgId, input.name, undefined, async (manager) => {
      const row = await this.store.insert(orgId, write, manager);
      if (row) await this.audited({ orgId, actor, before: null, after: row }, manager);
      return row;
    });
    this.cache.invalidate(orgId);
    if (!saved) throw new ConflictError(`an MCP server named "${input.name}" already exists`);
    return this.view(saved);
  }

  /** Replaces the server; headers left out keep their stored values (clients never see them to send back). */
  async update(orgId: string, id: string, input: McpServerInput, actor: string | null = null) {
    const existing = await this.find(orgId, id);
    const write = await this.checked(orgId, input, existing);
    const saved = await this.inTransaction(orgId, input.name, id, async (manager) => {
      const row = await this.store.update(orgId, id, write, manager);
      if (row) await this.audited({ orgId, actor, before: existing, after: row }, manager);
      return row;
    });
    this.cache.invalidate(orgId);
    if (!saved) throw new NotFoundError('MCP server', id);
    this.pool.forget(id);
    return this.view(saved);
  }

  async remove(orgId: string, id: string, actor: string | null = null): Promise<void> {
    const removed =
      isUuid(id) &&
      (await this.tx.run(async ({ manager }) => {
        const row = await this.store.remove(orgId, id, manager);
        if (row) await this.audited({ orgId, actor, before: row, after: null }, manager);
        return row;
      }));
    if (!removed) throw new NotFoundError('MCP server', id);
    this.cache.invalidate(orgId);
    this.pool.forget(id);
  }

  /** A save under `name`: two admins racing for one tool namespace get the same 409 as `assertFree` gives. */
  private async inTransaction<T>(
    orgId: string,
    name: string,
    id: string | undefined,
    work: (m: Queryable) => Promise<T>,
  ): Promise<T> {
    try {
      return await this.tx.run(({ manager }) => work(manager));
    } catch (err) {
      throw await this.namespaces.refusal(err, orgId, name, id);
    }
  }

  /** Writes the change's audit event inside its transaction (`tx`). */
  private audited(change: Parameters<typeof mcpServerChange>[1], tx: Queryable): Promise<void> {
    return this.audit.configChange(mcpServerChange(this.secrets, change), tx);
  }

  private async find(orgId: string, id: string): Promise<McpServerRecord> {
    const found = isUuid(id) ? await this.store.find(orgId, id) : null;
    if (!found) throw new NotFoundError('MCP server', id);
    return found;
  }

  /** Every problem at once (400, nothing saved); headers are sealed like channel secrets. */
  private async checked(
    orgId: string,
    input: McpServerInput,
    existing: McpServerRecord | undefined,
  ): Promise<McpServerWrite> {
    const problems: string[] = [];
    if (!NAME.test(input.name))
      problems.push(
        `name "${input.name}" must start with a letter and contain only letters, digits, "_" or "-" (max 64)`,
      );
    let url: URL | undefined;
    try {
      url = new URL(input.url);
    } catch {
      /* reported below */
    }
    if (!url || !['http:', 'https:'].includes(url.protocol))
      problems.push(`url "${input.url}" must be an absolute http(s) URL (streamable HTTP endpoint)`);
    else if (url.username || url.password) problems.push('url must not carry credentials (use headers)');
    for (const [key, value] of Object.entries(input.headers ?? {})) {
      if (!HEADER_NAME.test(key) || typeof value !== 'string')
        problems.push(`headers.${key} must be a string under a valid header name`);
    }
    problems.push(...toolOverrideProblems(input.tool_overrides));
    // The stored token belongs to the host it was entered for: another origin needs it again.
    const kept = existing && input.headers === undefined ? existing.headerKeys.map((k) => `headers.${k}`) : [];
    const rebind = existing && secretsFollowProblem({ field: 'url', before: existing.url, after: input.url, kept });
    if (rebind) problems.push(rebind);
    // A URL that did not parse is among the problems.
    if (problems.length || !url) throw new BadInputError(`the MCP server is invalid: ${problems.join('; ')}`, problems);
    await this.namespaces.assertFree(orgId, input.name, existing?.id);
    const headers =
      input.headers ?? (existing ? (this.secrets.open(existing.sealedHeaders) as Record<string, string>) : {});
    return {
      name: input.name,
      url: url.toString(),
      sealedHeaders: this.secrets.seal(headers),
      headerKeys: Object.keys(headers).sort(),
      toolOverrides: input.tool_overrides ?? {},
    };
  }

  /** Header values are secrets: only their names are shown. Tools are listed live (connecting when needed). */
  private async view(s: McpServerRecord) {
    let tools: McpTool[] = [];
    let error: string | null = null;
    try {
      tools = (await this.pool.tools(s)).map((t) => toMcpTool(s, t));
    } catch (err) {
      error = (egressRefusalIn(err) ?? (err as Error)).message;
    }
    return {
      id: s.id,
      name: s.name,
      url: s.url,
      header_keys: s.headerKeys,
      tool_overrides: s.toolOverrides,
      status: error === null ? 'connected' : 'unreachable',
      error,
      tools: tools.map((t) => ({
        name: t.name,
        tool: t.tool,
        description: t.description,
        parameters: t.parameters,
        write: t.write,
        requires_confirmation: t.requiresConfirmation,
        requires_confirmation_when: t.requiresConfirmationWhen,
        read_only_hint: t.annotations.readOnlyHint ?? null,
        destructive_hint: t.annotations.destructiveHint ?? null,
      })),
      created_at: s.createdAt.toISOString(),
      updated_at: s.updatedAt.toISOString(),
    };
  }
}
