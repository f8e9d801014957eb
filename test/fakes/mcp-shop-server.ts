import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { z } from 'zod';

export interface ShopCall {
  tool: string;
  args: Record<string, unknown>;
  authorization?: string;
}

export interface McpShopServer {
  /** The streamable HTTP endpoint. */
  url: string;
  calls: ShopCall[];
  /** Adds a tool on every open session (the SDK then sends notifications/tools/list_changed). */
  addTool(name: string, description: string, answer: string): void;
  close(): Promise<void>;
}

/**
 * An MCP server built with the official SDK (McpServer + StreamableHTTPServerTransport, stateful sessions) exposing
 * `pay` (destructive), `lookup` (read-only), `cancel` (no annotations: MCP's defaults make it a destructive write) and
 * `note` (says it is a non-destructive write). Requests without the expected bearer token get 401.
 */
export async function startMcpShopServer(opts: { token: string }): Promise<McpShopServer> {
  const calls: ShopCall[] = [];
  const servers: McpServer[] = [];
  const extraTools: Array<{ name: string; description: string; answer: string }> = [];
  const transports = new Map<string, StreamableHTTPServerTransport>();
  let currentAuth: string | undefined;

  const register = (server: McpServer, tool: { name: string; description: string; answer: string }) =>
    server.registerTool(
      tool.name,
      { description: tool.description, inputSchema: {}, annotations: { readOnlyHint: true } },
      () => {
        calls.push({ tool: tool.name, args: {}, authorization: currentAuth });
        return { content: [{ type: 'text', text: tool.answer }] };
      },
    );

  const build = () => {
    const server = new McpServer(
      { name: 'shop', version: '1.0.0' },
      { capabilities: { tools: { listChanged: true } } },
    );
    server.registerTool(
      'pay',
      {
        description: 'Pay an invoice',
        inputSchema: { invoice: z.string(), amount: z.number() },
        annotations: { readOnlyHint: false, destructiveHint: true },
      },
      (args) => {
        calls.push({ tool: 'pay', args, authorization: currentAuth });
        return {
          content: [{ type: 'text', text: `paid ${args.invoice}: ${args.amount}` }],
          structuredContent: { paid: true },
        };
      },
    );
    server.registerTool(
      'lookup',
      {
        description: 'Look up an invoice',
        inputSchema: { invoice: z.string() },
        annotations: { readOnlyHint: true },
      },
      (args) => {
        calls.push({ tool: 'lookup', args, authorization: currentAuth });
        return {
          content: [
            { type: 'text', text: `invoice ${args.invoice}: open, 60000` },
            { type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' },
          ],
        };
      },
    );
    const recorded = (tool: string) => (args: Record<string, unknown>) => {
      calls.push({ tool, args, authorization: currentAuth });
      return { content: [{ type: 'text' as const, text: `${tool} ${String(args.invoice)}` }] };
    };
    server.registerTool(
      'cancel',
      { description: 'Cancel an invoice', inputSchema: { invoice: z.string() } },
      recorded('cancel'),
    );
    server.registerTool(
      'note',
      {
        description: 'Add a note to an invoice',
        inputSchema: { invoice: z.string() },
        annotations: { readOnlyHint: false, destructiveHint: false },
      },
      recorded('note'),
    );
    for (const t of extraTools) register(server, t);
    servers.push(server);
    return server;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.headers.authorization !== `Bearer ${opts.token}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unauthorized' }));
      return;
    }
    currentAuth = req.headers.authorization;
    let body: unknown;
    if (req.method === 'POST') {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    }
    const sessionId = req.headers['mcp-session-id'] as string | undefined;
    let transport = sessionId ? transports.get(sessionId) : undefined;
    if (!transport) {
      if (!(req.method === 'POST' && isInitializeRequest(body))) {
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'no valid session' }, id: null }));
        return;
      }
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void transports.set(id, created),
      });
      transport = created;
      await build().connect(created);
    }
    await transport.handleRequest(req, res, body);
  };
  const http = createServer((req, res) => void handle(req, res));
  const sockets = new Set<Socket>();
  http.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    addTool(name, description, answer) {
      const tool = { name, description, answer };
      extraTools.push(tool);
      for (const server of servers) register(server, tool);
    },
    async close() {
      await Promise.allSettled(servers.map((s) => s.close()));
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
