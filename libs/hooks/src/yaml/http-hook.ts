import { createHmac } from 'node:crypto';
import type { HookProtocolInput } from './hook-protocol.js';

/** How the hook's answer is read: Warden/Claude Code hook JSON, or an OPA Data API document (`{ "result": ... }`). */
export type HttpHookFormat = 'warden' | 'opa';

export interface HttpHookSpec {
  url: string;
  headers: Record<string, string>;
  format: HttpHookFormat;
}

/** What the runtime gives HTTP hooks: the egress-guarded fetch, the host allow-list and the signing secret. */
export interface HttpHookEnvironment {
  fetch?: typeof fetch;
  allow: string[];
  secret?: string;
}

export const MAX_HTTP_RESPONSE_BYTES = 1024 * 1024;
const FORBIDDEN_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'x-warden-signature',
  'x-warden-timestamp',
  'transfer-encoding',
  'connection',
]);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads the `url`, `headers` and `format` of a YAML `http` hook; every problem is pushed with the entry's prefix. */
export function parseHttpHook(
  raw: Record<string, unknown>,
  where: string,
  problems: string[],
): HttpHookSpec | undefined {
  let url: URL | undefined;
  if (typeof raw.url !== 'string') problems.push(`${where}.url: must be an http(s) URL`);
  else {
    try {
      url = new URL(raw.url);
    } catch {
      problems.push(`${where}.url: must be an http(s) URL`);
    }
    if (url && url.protocol !== 'http:' && url.protocol !== 'https:')
      problems.push(`${where}.url: must be an http(s) URL, not ${url.protocol}`);
    if (url && (url.username || url.password)) problems.push(`${where}.url: must not carry credentials (use headers)`);
  }
  const headers: Record<string, string> = {};
  if (raw.headers !== undefined) {
    if (!isObject(raw.headers)) problems.push(`${where}.headers: must be a mapping of header names to strings`);
    else
      for (const [name, value] of Object.entries(raw.headers)) {
        if (typeof value !== 'string' || !/^[A-Za-z0-9-]{1,64}$/.test(name))
          problems.push(`${where}.headers.${name}: must be a string under a plain header name`);
        else if (FORBIDDEN_HEADERS.has(name.toLowerCase())) problems.push(`${where}.headers.${name}: is set by Warden`);
        else headers[name] = value;
      }
  }
  const format = raw.format ?? 'warden';
  if (format !== 'warden' && format !== 'opa') problems.push(`${where}.format: must be "warden" or "opa"`);
  return url ? { url: url.toString(), headers, format: format as HttpHookFormat } : undefined;
}

/** Why this hook's host may not be called, or null (checked when the hooks are built: the run is refused). */
export function httpHookHostProblem(spec: HttpHookSpec, env: HttpHookEnvironment): string | null {
  const url = new URL(spec.url);
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  if (env.allow.includes(host) || env.allow.includes(`${host}:${port}`)) return null;
  const allowList = env.allow.length ? ` (${env.allow.join(', ')})` : ' (unset: no HTTP hooks allowed)';
  return `url host "${url.host}" is not in HOOK_HTTP_ALLOW${allowList}`;
}

/**
 * POSTs the hook input as JSON (OPA: wrapped as `{ "input": ... }`) and returns the hook's answer for
 * protocolResult. Anything but a 2xx JSON answer throws: the registry then applies on_error (PreToolUse: block).
 */
export async function callHttpHook(
  spec: HttpHookSpec,
  env: HttpHookEnvironment,
  input: HookProtocolInput,
  signal: AbortSignal,
): Promise<unknown> {
  if (!env.fetch) throw new Error('HTTP hooks need the egress policy');
  const body = JSON.stringify(spec.format === 'opa' ? { input } : input);
  const headers: Record<string, string> = {
    ...spec.headers,
    'content-type': 'application/json',
    accept: 'application/json',
  };
  if (env.secret) Object.assign(headers, signatureHeaders(env.secret, body));
  let res: Response;
  try {
    res = await env.fetch(spec.url, { method: 'POST', headers, body, signal, redirect: 'error' });
  } catch (err) {
    if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
    throw new Error(`policy server ${new URL(spec.url).host} could not be reached: ${(err as Error).message}`);
  }
  const text = await readCapped(res);
  if (!res.ok) throw new Error(`policy server answered HTTP ${res.status}${text ? `: ${text.slice(0, 200)}` : ''}`);
  if (text.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`policy server answer is not JSON: ${JSON.stringify(text.slice(0, 80))}`);
  }
  return spec.format === 'opa' ? fromOpa(parsed) : parsed;
}

/**
 * OPA's Data API answers `{ "result": <document> }`; the document is the hook output (`{ "allow": false, "reason" }`,
 * `{ "decision": "block", ... }`), or a bare boolean (false = deny). No `result` means the rule is undefined, which is
 * an error (fail closed), never an allow.
 */
function fromOpa(answer: unknown): unknown {
  if (!isObject(answer) || !('result' in answer))
    throw new Error('OPA returned no result (is the policy path right and the rule defined?)');
  const result = answer.result;
  if (result === true) return {};
  if (result === false) return { allow: false, reason: 'denied by policy' };
  return result;
}

/**
 * `X-Warden-Signature: sha256=<hex>` over `<timestamp>.<body>`, so a policy server can reject forged or replayed calls.
 */
export function signatureHeaders(secret: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = String(Math.floor(now / 1000));
  const digest = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return { 'x-warden-timestamp': timestamp, 'x-warden-signature': `sha256=${digest}` };
}

async function readCapped(res: Response): Promise<string> {
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > MAX_HTTP_RESPONSE_BYTES)
      throw new Error(`policy server answer exceeded ${MAX_HTTP_RESPONSE_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
