/**
 * Prints every SQL statement one chat run (model -> one connector call -> answer) sends, grouped by transaction, from
 * PostgreSQL's own log (log_statement = 'all' on the trace's database). A tool for finding where a run's transactions
 * go (`npm run bench:trace`, after `npm run build`); TRACE_GATED=1 traces a run that waits for an approval, then the
 * approval and the rest of the run.
 */
import { readFileSync, statSync } from 'node:fs';
import { mintDevToken } from '../libs/auth/src/tokens/dev-token.js';
import { startFakeOpenAI } from '../test/fakes/fake-openai.js';
import { startHttpFake } from '../test/fakes/http-fake.js';
import { startServerProcess, type ServerProcess } from '../test/support/server-process.js';
import { createBenchDatabase, withAdmin } from './bench-database.js';

const LOG = process.env.PG_LOG ?? '/var/log/postgresql/postgresql-15-main.log';
const SECRET = 'bench-trace-dev-secret-0123456789abcdef';
const GATED = process.env.TRACE_GATED === '1';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const db = await createBenchDatabase('trace');
await withAdmin((c) => c.query(`ALTER DATABASE ${db.name} SET log_statement = 'all'`));
const llm = await startFakeOpenAI((body) => {
  if (body.messages.some((m) => m.role === 'tool')) return { content: 'Paid.' };
  const amount = Number(/amount (\d+)/.exec(String(body.messages.at(-1)?.content))?.[1] ?? 100);
  return { tool_calls: [{ name: 'oa__purchase_pay', args: { id: 'PO-1', amount } }] };
});
const oa = await startHttpFake(() => ({ ok: true }));
let server: ServerProcess | undefined;
try {
  server = await startServerProcess(
    {
      DATABASE_URL: db.url,
      AUTH_MODE: 'dev',
      AUTH_DEV_SECRET: SECRET,
      APP_ENCRYPTION_KEY: 'bench-encryption-key-0123456789abcdef',
      SEED_DEMO: 'false',
      WARDEN_LLM_KEY_FAKE: 'sk-fake',
      ...(process.env.TRACE_IDLE ? {} : { RUN_RECOVERY_MS: '600000', CONFIRMATION_ESCALATION_POLL_MS: '600000' }),
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
    name: 'trace',
    instructions: 'pay',
    model_config_json: {
      model: { provider: 'openai', base_url: llm.baseUrl, model: 'fake', api_key_env: 'WARDEN_LLM_KEY_FAKE' },
      tools: ['oa__*'],
      confirmation: { timeout_s: 3600 },
    },
  });
  const chat = async (message: string, until: string) => {
    const res = await fetch(`${url}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent_id: agent.id, message }),
    });
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
  for (let i = 0; i < 3; i++) await chat('pay amount 100', 'done');
  await sleep(1500);
  const from = statSync(LOG).size;
  const IDLE = Number(process.env.TRACE_IDLE ?? 0);
  if (IDLE > 0) {
    // Runs waiting for approval with their streams open; then what the server sends while nothing happens.
    const streams = Array.from({ length: IDLE }, () => chat('pay amount 60000', 'confirmation_pending'));
    await Promise.all(streams);
    await sleep(3000);
    const at = statSync(LOG).size;
    await sleep(20_000);
    const idle = readFileSync(LOG, 'utf8')
      .slice(at)
      .split('\n')
      .filter((l) => l.includes(`@${db.name} `) && l.includes(' LOG: '));
    const byKind = new Map<string, number>();
    for (const l of idle) {
      const sql = /(?:statement|execute [^:]*):\s*(.*)$/.exec(l)?.[1]?.replace(/\s+/g, ' ').slice(0, 90) ?? '?';
      byKind.set(sql, (byKind.get(sql) ?? 0) + 1);
    }
    for (const [sql, n] of [...byKind].sort((x, y) => y[1] - x[1])) console.log(`${(n / 20).toFixed(2)}/s  ${sql}`);
    process.exit(0);
  }
  if (GATED) {
    const text = await chat('pay amount 60000', 'confirmation_pending');
    const id = /"confirmation_id":"([^"]+)"/.exec(text)?.[1];
    await sleep(500);
    console.log('---- approval ----');
    await api('POST', `/api/confirmations/${id}/decision`, { decision: 'approve' });
  } else await chat('pay amount 100', 'done');
  await sleep(1500);
  const lines = readFileSync(LOG, 'utf8')
    .slice(from)
    .split('\n')
    .filter((l) => l.includes(`@${db.name} `) && / (LOG|ERROR): /.test(l));
  let tx = 0;
  for (const l of lines) {
    const m = /\[(\d+)\].*?(?:LOG|ERROR):\s+(?:statement|execute [^:]*):\s*(.*)$/.exec(l);
    if (!m) continue;
    const sql = m[2].replace(/\s+/g, ' ').slice(0, 220);
    if (/^(COMMIT|ROLLBACK)/i.test(sql) || !/^(BEGIN|START)/i.test(sql)) {
      /* printed below */
    }
    if (/^(BEGIN|START TRANSACTION)/i.test(sql)) tx++;
    console.log(`[${m[1]}] ${sql}`);
  }
  console.log(`explicit transactions: ${tx}; statements: ${lines.length}`);
} finally {
  await server?.stop('SIGKILL');
  await Promise.all([llm.close(), oa.close()]);
  await db.drop();
}
process.exit(0);
