/**
 * The run engine's database cost on a real server process (issue 17, `npm run bench:engine`), counted by PostgreSQL
 * itself (pg_stat_database.xact_commit of the bench's own database):
 * (a) transactions per chat run (model -> one connector call -> answer), over BENCH_RUNS sequential runs.
 *     Target <= 8 (LangGraph.js with its PostgreSQL checkpointer: 10 on the same run).
 * (b) idle transactions/s while 100, 1 000 and 2 000 runs wait for an approval with their event streams open.
 *     Target <= 2/s, flat in the number of waiting runs.
 * Needs `npm run build` (it starts dist/apps/api/src/main.js). BENCH_RUNS / BENCH_IDLE (e.g. "100,1000,2000") /
 * BENCH_WINDOW_S change the sizes.
 */
import { mintDevToken } from '../libs/auth/src/tokens/dev-token.js';
import { startFakeOpenAI } from '../test/fakes/fake-openai.js';
import { startHttpFake } from '../test/fakes/http-fake.js';
import { startServerProcess, type ServerProcess } from '../test/support/server-process.js';
import { createBenchDatabase, withAdmin } from './bench-database.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 50);
const IDLE = (process.env.BENCH_IDLE ?? '100,1000,2000').split(',').map(Number);
const WINDOW_S = Number(process.env.BENCH_WINDOW_S ?? 10);
// PostgreSQL publishes a backend's statistics at most once a second, and an idle backend's up to 10 s late.
const STATS_LAG_MS = 11_000;
const SECRET = 'bench-engine-dev-secret-0123456789abcdef';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const db = await createBenchDatabase('engine');
const commits = () =>
  withAdmin(async (c) =>
    Number(
      (await c.query<{ n: string }>(`SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1`, [db.name])).rows[0]
        .n,
    ),
  );
// The model pays the amount named in the message, then answers.
const llm = await startFakeOpenAI((body) => {
  if (body.messages.some((m) => m.role === 'tool')) return { content: 'Paid.' };
  const amount = Number(/amount (\d+)/.exec(String(body.messages.at(-1)?.content))?.[1] ?? 100);
  return { tool_calls: [{ name: 'oa__purchase_pay', args: { id: 'PO-1', amount } }] };
});
const oa = await startHttpFake(() => ({ ok: true }));
let server: ServerProcess | undefined;
let failed = false;
const streams: AbortController[] = [];
try {
  server = await startServerProcess(
    {
      DATABASE_URL: db.url,
      AUTH_MODE: 'dev',
      AUTH_DEV_SECRET: SECRET,
      APP_ENCRYPTION_KEY: 'bench-encryption-key-0123456789abcdef',
      SEED_DEMO: 'false',
      WARDEN_LLM_KEY_FAKE: 'sk-fake',
      DB_POOL_SIZE: '20',
    },
    { timeoutMs: 120_000 },
  );
  const { url } = server;
  const token = await mintDevToken(SECRET, { sub: 'alice', org: 'acme', roles: ['admin'] });
  const api = async <T = unknown>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path} -> ${res.status} ${await res.text()}`);
    return res.json() as Promise<T>;
  };
  await api('POST', '/api/connectors', {
    name: 'oa',
    base_url: oa.url,
    actions: [
      {
        name: 'purchase_pay',
        method: 'POST',
        path: '/purchases/{id}/pay',
        write: true,
        requires_confirmation_when: 'args.amount > 50000',
        parameters: { type: 'object', properties: { id: { type: 'string' }, amount: { type: 'number' } }, required: ['id', 'amount'] },
      },
    ],
  });
  const agent = await api<{ id: string }>('POST', '/api/agents', {
    name: 'bench',
    instructions: 'pay',
    model_config_json: {
      model: { provider: 'openai', base_url: llm.baseUrl, model: 'fake', api_key_env: 'WARDEN_LLM_KEY_FAKE' },
      tools: ['oa__*'],
      confirmation: { timeout_s: 3600 },
    },
  });
  /** Opens a chat stream; resolves once `until` is seen (the stream stays open until `abort`). */
  const chat = async (message: string, until: string, abort = new AbortController()) => {
    const res = await fetch(`${url}/api/chat`, {
      method: 'POST',
      signal: abort.signal,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent_id: agent.id, message }),
    });
    if (!res.body) throw new Error('the chat answered without a body');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!text.includes(`event: ${until}`)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended before ${until}: ${text.slice(-300)}`);
      text += new TextDecoder().decode(value);
    }
    return abort;
  };

  for (let i = 0; i < 3; i++) await chat('pay amount 100', 'done');
  await sleep(STATS_LAG_MS);
  const before = await commits();
  for (let i = 0; i < RUNS; i++) await chat('pay amount 100', 'done');
  await sleep(STATS_LAG_MS);
  const perRun = ((await commits()) - before) / RUNS;
  console.log(`(a) transactions per chat run (1 tool call), over ${RUNS} runs: ${perRun.toFixed(1)}  (target <= 8; LangGraph.js 10)`);
  console.log('    includes the background loops of those seconds (lease keeper, recovery, approval waiter)');

  let waiting = 0;
  for (const n of IDLE) {
    for (; waiting < n; waiting++) streams.push(await chat(`pay amount ${60_000 + waiting}`, 'confirmation_pending'));
    await sleep(STATS_LAG_MS);
    const start = await commits();
    await sleep(WINDOW_S * 1000);
    const rate = ((await commits()) - start) / WINDOW_S;
    console.log(`(b) idle with ${n} runs waiting for approval (streams open): ${rate.toFixed(2)} transactions/s  (target <= 2/s, flat)`);
  }
} catch (err) {
  failed = true;
  console.error('bench failed:', err);
} finally {
  for (const s of streams) s.abort();
  await server?.stop('SIGKILL');
  await Promise.all([llm.close(), oa.close()]);
  await db.drop();
}
process.exit(failed ? 1 : 0);
