import type { ServerProcess } from '../support/server-process.js';

export interface Instances {
  a: ServerProcess;
  b: ServerProcess;
}

export interface SeenResponse {
  instance: string;
  method: string;
  path: string;
  status: number;
  retryAfter: string | null;
}

/**
 * What a reverse proxy in front of two instances does, as a test client: each request goes to the next instance in
 * turn; a refused connection or a 503 passes the request to the other one. Every response any instance gave is kept
 * (`responses`), so the test can say which statuses clients would have met.
 */
export function instanceProxy(servers: Instances, token: string) {
  const responses: SeenResponse[] = [];
  let turn = 0;

  const attempt = async (server: ServerProcess, method: string, path: string, body?: unknown) => {
    try {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const text = await res.text();
      const seen = {
        instance: server.url,
        method,
        path,
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
      };
      responses.push(seen);
      return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined, seen };
    } catch {
      // Connection refused or reset: the instance is gone (or going); the proxy tries the other.
      return undefined;
    }
  };

  return {
    responses,
    /** Sends to the instances in turn until one answers with anything but a 503 (two rounds at most). */
    async send(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
      const order = turn++ % 2 === 0 ? [servers.a, servers.b] : [servers.b, servers.a];
      for (const server of [...order, ...order]) {
        const res = await attempt(server, method, path, body);
        if (res && res.status !== 503) return res;
      }
      throw new Error(`no instance answered ${method} ${path}`);
    },
    /** True once the instance's health check answers 503 with Retry-After (what takes it out of the proxy's pool). */
    async draining(server: ServerProcess): Promise<boolean> {
      const res = await attempt(server, 'GET', '/api/health');
      return res?.status === 503 && res.seen.retryAfter !== null;
    },
  };
}
