/**
 * Replay (#34): POST /api/policies/replay of a tier change over 100,000 recorded calls, on the real app and a real
 * PostgreSQL. Target: the whole replay (read, decide every call under the candidate's PreToolUse chain in dry-run
 * mode, compare, summarize) within 30 s on one instance, and exactly the expected calls changed.
 *
 * Uses its own database on the server of TEST_DATABASE_URL, dropped at the end. `npm run bench:replay`;
 * BENCH_REPLAY_CALLS sets the number of calls (default 100,000).
 */
import 'reflect-metadata';
import { loadavg } from 'node:os';
import { createApp } from '../apps/api/src/bootstrap.js';
import { mintDevToken } from '../libs/auth/src/tokens/dev-token.js';
import { createDataSource } from '../libs/database/src/data-source.js';
import { createBenchDatabase } from './bench-database.js';

const CALLS = Number(process.env.BENCH_REPLAY_CALLS ?? 100_000);
const TARGET_MS = 30_000;
const SECRET = 'bench-dev-secret-0123456789abcdef';
const PAY = {
  name: 'purchase_pay',
  method: 'POST',
  path: '/purchases/{id}/pay',
  description: 'Pay a purchase order',
  parameters: {
    type: 'object',
    properties: { id: { type: 'string' }, amount: { type: 'number' } },
    required: ['id', 'amount'],
  },
  requires_confirmation_when: 'args.amount > 50000',
};
const TIERED = { confirmation: { approvers: ['org_admins'], tiers: [{ when: 'args.amount > 80000', approvals: 2 }] } };

const db = await createBenchDatabase('replay');
let failed = false;
try {
  const app = await createApp({
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    AUTH_MODE: 'dev',
    AUTH_DEV_SECRET: SECRET,
    DATABASE_URL: db.url,
    SEED_DEMO: 'false',
    APP_ENCRYPTION_KEY: 'bench-encryption-key-0123456789abcdef',
  });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as { port: number };
  const token = await mintDevToken(SECRET, { sub: 'admin', org: 'acme', roles: ['admin'] });
  const api = async (path: string, body: unknown) => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };
  await api('/api/connectors', { name: 'oa', base_url: 'http://127.0.0.1:9', actions: [PAY] });
  const model = { provider: 'scripted', script: [{ content: 'ok' }] };
  const agent = (await api('/api/agents', {
    name: 'payer',
    instructions: 'x',
    model_config_json: { model, tools: ['oa__*'], confirmation: { approvers: ['org_admins'] } },
  })) as { id: string };

  // The recorded calls, as the live policy decided them: amounts 0 … 99 999; above 50 000 the action asks once.
  const seed = createDataSource({ url: db.url, embedded: false, close: () => Promise.resolve() }, 1);
  await seed.initialize();
  await seed.query(
    `INSERT INTO policy_decisions (org_id, agent_id, user_id, run_id, call_id, tool, args, decision, approvals, args_digest, rewritten, created_at)
     SELECT (SELECT org_id FROM agents WHERE id = $1), $1::text, 'bench-user', NULL, 'call_' || g, 'oa__purchase_pay',
            jsonb_build_object('id', 'PO-' || g, 'amount', g % 100000),
            CASE WHEN g % 100000 > 50000 THEN 'ask' ELSE 'allow' END, CASE WHEN g % 100000 > 50000 THEN 1 ELSE 0 END,
            encode(sha256(convert_to('oa__purchase_pay' || E'\n' || '{"amount":' || (g % 100000) || ',"id":"PO-' || g || '"}', 'UTF8')), 'hex'),
            false, timestamptz '2026-11-01' + (g || ' s')::interval
       FROM generate_series(0, $2 - 1) g`,
    [agent.id, CALLS],
  );
  await seed.destroy();
  const expected = Array.from({ length: CALLS }, (_, g) => g % 100000).filter((a) => a > 80000).length;

  const load = loadavg();
  const cpu = process.cpuUsage();
  const started = Date.now();
  const res = await api('/api/policies/replay', {
    config: TIERED,
    agent: agent.id,
    from: '2026-11-01T00:00:00Z',
    to: '2026-12-01T00:00:00Z',
  });
  const ms = Date.now() - started;
  const used = process.cpuUsage(cpu);
  const cpuS = (used.user + used.system) / 1e6;
  const { summary } = res as { summary: { calls: number; changed: number; more_approvals: number; text: string } };
  console.log(
    `replay of ${summary.calls} recorded calls: ${(ms / 1000).toFixed(1)} s (${Math.round((summary.calls / ms) * 1000)} calls/s)`,
  );
  console.log(`  ${summary.text}`);
  // The machine may be shared: the CPU this process spent, and the load around the run, say how much of the time was ours.
  const after = loadavg();
  console.log(
    `  app process CPU: ${cpuS.toFixed(1)} s; load average before ${load.map((l) => l.toFixed(2)).join(' ')}, after ${after.map((l) => l.toFixed(2)).join(' ')}`,
  );
  console.log(`  target: ≤ ${TARGET_MS / 1000} s for ${CALLS} calls, ${expected} changed`);
  if (summary.calls !== CALLS || summary.changed !== expected || summary.more_approvals !== expected || ms > TARGET_MS)
    failed = true;
  await app.close();
} finally {
  await db.drop();
}
console.log(failed ? 'FAILED' : 'ok');
process.exit(failed ? 1 : 0);
