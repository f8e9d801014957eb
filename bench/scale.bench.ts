/**
 * #30 `bench:scale`: SCALE_RUNS (default 10 000) runs parked for approval across SCALE_INSTANCES (default 3) server
 * processes on one PostgreSQL database; the statements/s all instances send while nothing happens (streams closed);
 * then SCALE_BURST (default 1 000) approvals in a burst, each through the next instance in turn: every call must be
 * paid exactly once, and the time from sending a decision to its connector call (p50 / p99 / max; target p99 ≤ 250 ms).
 *
 *   npm run bench:scale        (TEST_DATABASE_URL picks the PostgreSQL server; a database of its own is made)
 */
import path from 'node:path';
import { mintDevToken } from '@warden/auth';
import { startFakeOpenAI } from '../test/fakes/fake-openai.js';
import { startHttpFake } from '../test/fakes/http-fake.js';
import { startServerProcess, type ServerProcess } from '../test/support/server-process.js';
import { payingModel } from '../test/e2e/process-harness.js';
import { OA_ACTIONS } from '../test/e2e/runtime-helpers.js';
import { createBenchDatabase } from './bench-database.js';
import { ScaleClient, percentile, recentStatements, statementsOf, untilAllParked } from './scale-client.js';

const RUNS = Number(process.env.SCALE_RUNS ?? 10_000);
const INSTANCES = Number(process.env.SCALE_INSTANCES ?? 3);
const BURST = Math.min(RUNS, Number(process.env.SCALE_BURST ?? 1_000));
const IDLE_S = Number(process.env.SCALE_IDLE_S ?? 20);
const SECRET = 'scale-bench-dev-secret-0123456789abcdef';
const LEASE_MS = 15_000;
const RECOVERY_MS = 5_000;
const COUNTER = path.resolve(import.meta.dirname, '../test/support/statement-counter.cjs');
/** A directory for each instance's V8 CPU profile of the whole bench (written when it stops): where a decision's time goes. */
const CPU_PROF_DIR = process.env.SCALE_CPU_PROF;

async function main(): Promise<void> {
  const db = await createBenchDatabase('scale');
  const llm = await startFakeOpenAI(payingModel);
  const paidAt = new Map<string, number[]>();
  const oa = await startHttpFake((req) => {
    const po = req.path.split('/')[2];
    paidAt.set(po, [...(paidAt.get(po) ?? []), performance.now()]);
    return { paid: po };
  });
  const servers: ServerProcess[] = [];
  try {
    const env = {
      DATABASE_URL: db.url,
      AUTH_MODE: 'dev',
      AUTH_DEV_SECRET: SECRET,
      APP_ENCRYPTION_KEY: 'scale-bench-encryption-key-0123456789abcdef',
      SEED_DEMO: 'false',
      WARDEN_LLM_KEY_FAKE: 'sk-fake',
      LLM_KEY_ORIGINS: `WARDEN_LLM_KEY_FAKE=${new URL(llm.baseUrl).origin}`,
      STATEMENT_COUNTER_TICK_MS: '1000',
      STATEMENT_COUNTER_RECENT: '30',
      RUN_LEASE_MS: String(LEASE_MS),
      RUN_RECOVERY_MS: String(RECOVERY_MS),
    };
    // The first instance migrates the new database; the others start on it.
    for (let i = 0; i < INSTANCES; i++) {
      const extra = { INSTANCE_ID: `scale-${i}`, ...(i > 0 ? { DB_SKIP_MIGRATIONS: '1' } : {}) };
      servers.push(
        await startServerProcess(
          { ...env, ...extra },
          { nodeArgs: ['--require', COUNTER, ...cpuProfArgs(i)], timeoutMs: 120_000 },
        ),
      );
    }
    const token = await mintDevToken(SECRET, { sub: 'alice', org: 'acme', roles: ['admin'] });
    const client = new ScaleClient(servers, token);
    const agentId = await client.setUp(oa.url, llm.baseUrl, OA_ACTIONS);

    const parkStart = performance.now();
    const confirmations = await client.parkRuns(agentId, RUNS);
    const parkS = (performance.now() - parkStart) / 1000;
    console.log(`parked ${confirmations.length} runs on ${INSTANCES} instances in ${parkS.toFixed(1)} s`);

    // What the instances still do for these runs after the client saw them park (the park write, the card), then
    // the recovery sweeps their last events scheduled one lease period later: the idle window starts after both.
    const settleStart = performance.now();
    await untilAllParked(db.url, RUNS);
    await new Promise((r) => setTimeout(r, LEASE_MS + RECOVERY_MS + 1_000));
    console.log(
      `every run parked in the database ${((performance.now() - parkStart) / 1000).toFixed(1)} s after the first chat; waited ${((performance.now() - settleStart) / 1000).toFixed(1)} s for the sweeps it scheduled`,
    );
    const idle = await statementsOf(servers, IDLE_S);
    console.log(`idle with ${RUNS} parked: ${idle.toFixed(3)} statements/s over ${IDLE_S} s (all instances; target 0)`);
    if (idle > 0) console.log(`  what they were (the last ones of each instance):\n${recentStatements(servers)}`);

    const burst = confirmations.slice(0, BURST);
    const sentAt = await client.approveAll(burst);
    const waitUntil = Date.now() + 120_000;
    while (burst.some((c) => !paidAt.has(c.po)) && Date.now() < waitUntil) await new Promise((r) => setTimeout(r, 50));
    const latencies = burst.map((c) => (paidAt.get(c.po)?.[0] ?? Number.NaN) - (sentAt.get(c.id) ?? Number.NaN));
    const twice = [...paidAt.values()].filter((times) => times.length > 1).length;
    const unpaid = burst.filter((c) => !paidAt.has(c.po)).length;
    const stray = [...paidAt.keys()].filter((po) => !burst.some((c) => c.po === po)).length;
    console.log(
      `burst of ${BURST} approvals: paid ${BURST - unpaid}, unpaid ${unpaid}, paid twice ${twice}, paid without approval ${stray}`,
    );
    const done = latencies.filter((l) => Number.isFinite(l));
    console.log(
      `decision -> connector call: p50 ${percentile(done, 50).toFixed(1)} ms, p99 ${percentile(done, 99).toFixed(1)} ms, ` +
        `max ${Math.max(...done).toFixed(1)} ms (target p99 <= 250 ms)`,
    );
  } finally {
    // A profiled instance stops gracefully so that V8 writes its profile.
    for (const s of servers) s.child.kill(CPU_PROF_DIR ? 'SIGTERM' : 'SIGKILL');
    await Promise.all(servers.map((s) => s.exited));
    await llm.close();
    await oa.close();
    await db.drop();
  }
}

function cpuProfArgs(instance: number): string[] {
  return CPU_PROF_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`, `--cpu-prof-name=instance-${instance}.cpuprofile`]
    : [];
}

await main();
