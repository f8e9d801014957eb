import type { Dispatcher } from 'undici';

/** What `EgressPolicy.request` sends: the fetch options this platform's own calls and the OpenAI SDK use. */
export interface EgressRequestInit {
  method?: string;
  headers?: Record<string, string> | Iterable<[string, string]>;
  body?: string | Uint8Array | null;
  signal?: AbortSignal | null;
}

/**
 * The part of a fetch `Response` that the connector executor and the OpenAI SDK read: status, headers, and a body
 * read once (as text or JSON, or iterated as bytes — the SDK iterates a stream's body when it is async-iterable).
 */
export interface EgressResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly url: string;
  readonly headers: Headers;
  readonly body: AsyncIterable<Uint8Array> & { cancel?: () => Promise<void> };
  text(): Promise<string>;
  json(): Promise<unknown>;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** Redirects followed, as fetch does by default (each hop's dial is checked by the dispatcher's connector). */
const MAX_REDIRECTIONS = 20;

function headersOf(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  return headers;
}

/** A request function over undici's `request` (see `EgressPolicy.request`) on `dispatcher`, following redirects. */
export async function egressRequester(
  dispatcher: Dispatcher,
): Promise<(url: string, init?: EgressRequestInit) => Promise<EgressResponse>> {
  const { request, interceptors } = await import('undici');
  const redirecting = dispatcher.compose(interceptors.redirect({ maxRedirections: MAX_REDIRECTIONS }));
  return async (url, init = {}) => {
    const body = init.body ?? undefined;
    if (body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array))
      throw new TypeError('an egress request body is a string or bytes');
    const res = await request(url, {
      dispatcher: redirecting,
      method: init.method ?? 'GET',
      headers: init.headers as Record<string, string> | undefined,
      body,
      signal: init.signal ?? undefined,
    });
    const stream = res.body;
    return {
      ok: res.statusCode >= 200 && res.statusCode < 300,
      status: res.statusCode,
      statusText: '',
      url,
      headers: headersOf(res.headers),
      body: Object.assign(stream, { cancel: () => Promise.resolve(void stream.destroy()) }),
      text: () => stream.text(),
      json: () => stream.json(),
      arrayBuffer: () => stream.arrayBuffer(),
    };
  };
}
