import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { AppConfig, EgressPolicy, egressRefusalIn, SecretBox } from '@warden/common';
import type { McpServerRecord } from './mcp-server.types.js';

/** How long a server whose connection failed is not tried again (its tools are missing meanwhile). */
const RECONNECT_BACKOFF_MS = 10_000;
/** Connecting (initialize + tools/list) may take this long at most, whatever CONNECTOR_TIMEOUT_MS says. */
const CONNECT_TIMEOUT_MS = 10_000;

interface Connection {
  /** The server row this connection was made for: a changed row (url, headers) means a new connection. */
  updatedAt: number;
  client: Promise<Client>;
  tools: Tool[];
}

/**
 * One MCP client (the official SDK, streamable HTTP) per registered server, connected on first use through the egress
 * policy with the server's decrypted headers. Each keeps the server's tool list, refreshed when the server sends
 * `notifications/tools/list_changed`. A connection that fails is dropped, so the next use connects again.
 */
@Injectable()
export class McpClientPool implements OnModuleDestroy {
  private readonly logger = new Logger(McpClientPool.name);
  private readonly connections = new Map<string, Connection>();
  /** Servers whose last connection failed, so that runs do not wait for an unreachable server on every turn. */
  private readonly failures = new Map<string, { at: number; updatedAt: number; error: Error }>();

  constructor(
    private readonly config: AppConfig,
    private readonly egress: EgressPolicy,
    private readonly secrets: SecretBox,
  ) {}

  /** The server's tools (connecting first when needed). Throws when the server cannot be reached. */
  async tools(server: McpServerRecord): Promise<Tool[]> {
    const connection = this.connectionFor(server);
    await connection.client;
    return connection.tools;
  }

  async callTool(server: McpServerRecord, tool: string, args: Record<string, unknown>, signal: AbortSignal) {
    const connection = this.connectionFor(server);
    try {
      const client = await connection.client;
      return await client.callTool({ name: tool, arguments: args }, undefined, {
        signal,
        timeout: this.config.connectorTimeoutMs,
      });
    } catch (err) {
      this.drop(server.id, connection);
      throw err;
    }
  }

  /** Forgets a server's connection (after an update or delete). */
  forget(serverId: string): void {
    this.failures.delete(serverId);
    const connection = this.connections.get(serverId);
    if (connection) this.drop(serverId, connection);
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.allSettled([...this.connections.values()].map(async (c) => (await c.client).close()));
    this.connections.clear();
  }

  private connectionFor(server: McpServerRecord): Connection {
    const failure = this.failures.get(server.id);
    if (failure?.updatedAt === server.updatedAt.getTime() && Date.now() - failure.at < RECONNECT_BACKOFF_MS)
      throw failure.error;
    const existing = this.connections.get(server.id);
    if (existing?.updatedAt === server.updatedAt.getTime()) return existing;
    if (existing) this.drop(server.id, existing);
    const connection: Connection = {
      updatedAt: server.updatedAt.getTime(),
      tools: [],
      client: undefined as unknown as Promise<Client>,
    };
    connection.client = this.connect(server, connection);
    connection.client.then(
      () => this.failures.delete(server.id),
      (err: unknown) => {
        const error = egressRefusalIn(err) ?? (err as Error);
        this.logger.warn({ server: server.name, reason: error.message }, 'MCP server unreachable');
        this.failures.set(server.id, { at: Date.now(), updatedAt: server.updatedAt.getTime(), error });
        this.drop(server.id, connection);
      },
    );
    this.connections.set(server.id, connection);
    return connection;
  }

  private async connect(server: McpServerRecord, connection: Connection): Promise<Client> {
    const client = new Client(
      { name: 'warden', version: '1.0.0' },
      {
        listChanged: {
          tools: {
            debounceMs: 0,
            onChanged: (err, tools) => {
              if (err) this.logger.warn({ server: server.name, reason: err.message }, 'MCP tool list refresh failed');
              else if (tools) connection.tools = tools;
            },
          },
        },
      },
    );
    const headers = this.secrets.open(server.sealedHeaders) as Record<string, string>;
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      fetch: this.egress.fetch,
      requestInit: { headers },
    });
    const timeout = Math.min(this.config.connectorTimeoutMs, CONNECT_TIMEOUT_MS);
    await client.connect(transport, { timeout });
    connection.tools = await listAllTools(client, timeout);
    return client;
  }

  private drop(serverId: string, connection: Connection): void {
    if (this.connections.get(serverId) === connection) this.connections.delete(serverId);
    connection.client
      .then(
        (c) => c.close(),
        () => undefined,
      )
      .catch(() => undefined);
  }
}

async function listAllTools(client: Client, timeout: number): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {}, { timeout });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor && tools.length < 1000);
  return tools;
}
