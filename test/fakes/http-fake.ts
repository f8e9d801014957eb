import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

export interface RecordedRequest {
  method: string;
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  rawBody: string;
  body: any;
  at: number;
}

export type FakeHandler = (req: RecordedRequest, res: ServerResponse) => unknown;

export interface HttpFake {
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Replaces the handler (tests switch a fake into an error mode). */
  setHandler(handler: FakeHandler): void;
  close(): Promise<void>;
}

/**
 * A local HTTP server on an ephemeral 127.0.0.1 port that records every request. A handler's return value is
 * sent as JSON (status 200) unless the handler already wrote the response.
 */
export async function startHttpFake(handler: FakeHandler): Promise<HttpFake> {
  let current = handler;
  const requests: RecordedRequest[] = [];
  const respond = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    let body: unknown = rawBody;
    if ((req.headers['content-type'] ?? '').includes('json')) {
      try {
        body = JSON.parse(rawBody);
      } catch {
        /* leave raw */
      }
    } else if ((req.headers['content-type'] ?? '').includes('x-www-form-urlencoded')) {
      body = Object.fromEntries(new URLSearchParams(rawBody));
    }
    const u = new URL(req.url ?? '/', 'http://127.0.0.1');
    const rec: RecordedRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      path: u.pathname,
      query: u.searchParams,
      headers: req.headers,
      rawBody,
      body,
      at: Date.now(),
    };
    requests.push(rec);
    try {
      const out = await current(rec, res);
      if (!res.headersSent && !res.writableEnded) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(out ?? {}));
      }
    } catch (err) {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: String(err) }));
    }
  };
  const server = createServer((req, res) => void respond(req, res));
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    setHandler: (h) => (current = h),
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
