import { Injectable } from '@nestjs/common';
import { AppConfig, EgressPolicy, jsonText, traceHeaders } from '@warden/common';
import type { Connector, ConnectorAction } from './connector.entity.js';

/** What the model reads is capped; the stored full result has a larger cap. */
export const OBSERVATION_MAX_CHARS = 64 * 1024;
const FULL_RESULT_MAX_CHARS = 1024 * 1024;
const PATH_PARAM = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export interface ConnectorRequest {
  method: string;
  url: string;
  body?: string;
}

export interface ConnectorResponse {
  ok: boolean;
  status?: number;
  /** The observation for the model (capped, with an error prefix when the call failed). */
  content: string;
  fullContent: string;
  durationMs: number;
  error?: string;
}

/**
 * Builds the HTTP request of a connector action from the call's args. Throws a plain Error naming a missing path arg.
 */
export function buildConnectorRequest(
  connector: Connector,
  action: ConnectorAction,
  args: Record<string, unknown>,
): ConnectorRequest {
  const inPath = new Set<string>();
  const missing: string[] = [];
  const dotted: string[] = [];
  const path = action.path.replace(PATH_PARAM, (_, name: string) => {
    const value = args[name];
    inPath.add(name);
    if (value === undefined || value === null || value === '') {
      missing.push(name);
      return '';
    }
    const text = jsonText(value);
    // "." and ".." survive encoding and would be resolved away by the URL parser (`/purchases/../pay` -> `/pay`).
    if (text === '.' || text === '..') dotted.push(name);
    return encodeURIComponent(text);
  });
  if (missing.length > 0)
    throw new Error(`missing path argument${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`);
  if (dotted.length > 0)
    throw new Error(`path argument${dotted.length > 1 ? 's' : ''} ${dotted.join(', ')} may not be "." or ".."`);
  const url = new URL(connector.baseUrl + path);
  const rest = Object.fromEntries(Object.entries(args).filter(([k]) => !inPath.has(k)));
  if (action.method === 'GET' || action.method === 'DELETE') {
    for (const [k, v] of Object.entries(rest)) {
      if (v !== undefined && v !== null) url.searchParams.set(k, jsonText(v));
    }
    return { method: action.method, url: url.toString() };
  }
  return { method: action.method, url: url.toString(), body: JSON.stringify(rest) };
}

function cap(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n…[truncated ${text.length - max} characters]`;
}

/** Calls connector actions over HTTP: one request per call, keyed by the call id. */
@Injectable()
export class ConnectorExecutor {
  constructor(
    private readonly config: AppConfig,
    private readonly egress: EgressPolicy,
  ) {}

  async execute(
    connector: Connector,
    action: ConnectorAction,
    args: Record<string, unknown>,
    callId: string,
    signal?: AbortSignal,
  ): Promise<ConnectorResponse> {
    const started = Date.now();
    const failed = (error: string, status?: number, text = ''): ConnectorResponse => ({
      ok: false,
      status,
      error,
      durationMs: Date.now() - started,
      content: cap(`Error: ${error}${text ? `\n${text}` : ''}`, OBSERVATION_MAX_CHARS),
      fullContent: cap(text, FULL_RESULT_MAX_CHARS),
    });
    let request: ConnectorRequest;
    try {
      request = buildConnectorRequest(connector, action, args);
    } catch (err) {
      return failed((err as Error).message);
    }
    const timeout = AbortSignal.timeout(this.config.connectorTimeoutMs);
    try {
      const res = await this.egress.request(request.url, {
        method: request.method,
        headers: {
          ...connector.headers,
          accept: 'application/json, text/plain;q=0.9, */*;q=0.5',
          'idempotency-key': callId,
          ...traceHeaders(),
          ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: request.body,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      const text = await res.text();
      if (!res.ok) return failed(`HTTP ${res.status} from ${action.method} ${action.path}`, res.status, text);
      return {
        ok: true,
        status: res.status,
        content: cap(text, OBSERVATION_MAX_CHARS),
        fullContent: cap(text, FULL_RESULT_MAX_CHARS),
        durationMs: Date.now() - started,
      };
    } catch (err) {
      if (timeout.aborted)
        return failed(`${action.method} ${action.path} timed out after ${this.config.connectorTimeoutMs} ms`);
      // The run stopped (shutdown, lease lost, cancel) with the request possibly out: not an outcome of the call.
      // The caller leaves it in flight, and the run's next driver settles it (interrupted, never retried).
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('the run was stopped');
      // A wrapped network error (refused, reset) names the problem in its `cause`.
      const reason = (err as Error).cause instanceof Error ? ((err as Error).cause as Error) : (err as Error);
      return failed(`${action.method} ${action.path} failed: ${reason.message}`);
    }
  }
}
