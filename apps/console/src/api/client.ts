import { loadSession } from '../auth/session';

/** An API error with the server's message, which is written for a person to act on. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly problems: string[] = [],
  ) {
    super(message);
  }
}

/** Called when the server says the token is no longer good (401): the app signs out. */
let onUnauthorized: () => void = () => undefined;
export function setUnauthorizedHandler(fn: () => void): void {
  onUnauthorized = fn;
}

export function reportUnauthorized(): void {
  onUnauthorized();
}

export function authHeaders(): Record<string, string> {
  const s = loadSession();
  return s ? { authorization: `Bearer ${s.token}` } : {};
}

async function fail(res: Response): Promise<never> {
  const text = await res.text();
  let message = `${res.status} ${res.statusText}`;
  let problems: string[] = [];
  try {
    const body = JSON.parse(text) as {
      message?: string | string[];
      details?: { problems?: string[] };
      problems?: string[];
    };
    message = Array.isArray(body.message) ? body.message.join('; ') : (body.message ?? message);
    problems = body.details?.problems ?? body.problems ?? (Array.isArray(body.message) ? body.message : []);
  } catch {
    /* not JSON */
  }
  if (res.status === 401) onUnauthorized();
  throw new ApiError(res.status, message, problems);
}

/** Opens a streaming request (SSE over fetch, so the bearer token and Last-Event-ID can be sent). */
export async function openStream(
  method: string,
  path: string,
  opts: { body?: unknown; lastEventId?: number; signal?: AbortSignal },
): Promise<Response> {
  const headers: Record<string, string> = { accept: 'text/event-stream', ...authHeaders() };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (opts.lastEventId) headers['last-event-id'] = String(opts.lastEventId);
  const res = await fetch(`/api${path}`, {
    method,
    headers,
    signal: opts.signal,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  if (!res.ok) return fail(res);
  return res;
}
