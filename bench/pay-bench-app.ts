import { mintDevToken } from '../libs/auth/src/tokens/dev-token.js';
import { startFakeOpenAI } from '../test/fakes/fake-openai.js';
import { startHttpFake } from '../test/fakes/http-fake.js';
import { startServerProcess, type ServerProcess } from '../test/support/server-process.js';
import { createBenchDatabase } from './bench-database.js';

const SECRET = 'bench-pay-app-dev-secret-0123456789abcdef';

/** A built server on a bench database of its own, with the OA connector and an agent that pays what it is asked. */
export interface PayBenchApp {
  db: { name: string; url: string };
  server: ServerProcess;
  token: string;
  agentId: string;
  /** The requests the OA connector's fake received (each with its arrival time, `at`). */
  oaRequests: Array<{ at: number; path: string }>;
  api<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  /** Opens a chat stream and reads it until `until` is seen (or it ends); returns the text read. */
  chat(message: string, until: string, abort?: AbortController): Promise<string>;
  close(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * The benches' shared set-up (`bench:engine`, `bench:trace`, `bench:profile`): the fake model pays the amount named in
 * the message (`pay amount 60000`; over 50 000 needs an approval) with `oa__purchase_pay`, then answers "Paid.".
 */
export async function startPayBenchApp(
  label: string,
  opts: {
    env?: Record<string, string>;
    nodeArgs?: string[];
    beforeStart?: (db: { name: string }) => Promise<unknown>;
  } = {},
): Promise<PayBenchApp> {
  const db = await createBenchDatabase(label);
  await opts.beforeStart?.(db);
  const llm = await startFakeOpenAI((body) => {
    if (body.messages.some((m) => m.role === 'tool')) return { content: 'Paid.' };
    const amount = Number(/amount (\d+)/.exec(String(body.messages.at(-1)?.content))?.[1] ?? 100);
    return { tool_calls: [{ name: 'oa__purchase_pay', args: { id: 'PO-1', amount } }] };
  });
  const oa = await startHttpFake(() => ({ ok: true }));
  const env = {
    DATABASE_URL: db.url,
    AUTH_MODE: 'dev',
    AUTH_DEV_SECRET: SECRET,
    APP_ENCRYPTION_KEY: 'bench-encryption-key-0123456789abcdef',
    SEED_DEMO: 'false',
    WARDEN_LLM_KEY_FAKE: 'sk-fake',
    LLM_KEY_ORIGINS: `WARDEN_LLM_KEY_FAKE=${new URL(llm.baseUrl).origin}`,
    ...opts.env,
  };
  const server = await startServerProcess(env, { timeoutMs: 120_000, nodeArgs: opts.nodeArgs });
  const token = await mintDevToken(SECRET, { sub: 'alice', org: 'acme', roles: ['admin'] });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const api = async <T = unknown>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path} -> ${res.status} ${await res.text()}`);
    return res.json() as Promise<T>;
  };
  const parameters = {
    type: 'object',
    properties: { id: { type: 'string' }, amount: { type: 'number' } },
    required: ['id', 'amount'],
  };
  const action = {
    name: 'purchase_pay',
    method: 'POST',
    path: '/purchases/{id}/pay',
    write: true,
    requires_confirmation_when: 'args.amount > 50000',
    parameters,
  };
  await api('POST', '/api/connectors', { name: 'oa', base_url: oa.url, actions: [action] });
  const model = { provider: 'openai', base_url: llm.baseUrl, model: 'fake', api_key_env: 'WARDEN_LLM_KEY_FAKE' };
  const agent = await api<{ id: string }>('POST', '/api/agents', {
    name: label,
    instructions: 'pay',
    model_config_json: { model, tools: ['oa__*'], confirmation: { timeout_s: 3600 } },
  });
  const chat = async (message: string, until: string, abort = new AbortController()): Promise<string> => {
    const body = JSON.stringify({ agent_id: agent.id, message });
    const res = await fetch(`${server.url}/api/chat`, { method: 'POST', signal: abort.signal, headers, body });
    if (!res.body) throw new Error('the chat answered without a body');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!text.includes(`event: ${until}`)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    return text;
  };
  const close = async (signal: NodeJS.Signals = 'SIGKILL') => {
    await server.stop(signal);
    await Promise.all([llm.close(), oa.close()]);
    await db.drop();
  };
  return { db, server, token, agentId: agent.id, oaRequests: oa.requests, api, chat, close };
}
