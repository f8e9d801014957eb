/**
 * audit_log throughput: connector calls per second through AuditLogHook.execute + AuditWriter against a real
 * PostgreSQL (target >= 5,000/s on one instance), and rows written vs calls made (must be equal).
 *
 * Uses its own database, created on the server of TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test),
 * migrated, and dropped at the end. `npm run bench:audit`; BENCH_AUDIT_CALLS sets the number of calls (default 100,000).
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { createDataSource } from '../libs/database/src/data-source.js';
import { createBenchDatabase } from './bench-database.js';
import { AuditLogHook } from '../libs/hooks/src/builtin/audit/audit-log.hook.js';
import { AuditWriter } from '../libs/hooks/src/builtin/audit/audit-writer.js';
import { HookPoint, type HookContext } from '../libs/hooks/src/hook.types.js';

const TARGET_PER_S = 5_000;
const CALLS = Number(process.env.BENCH_AUDIT_CALLS ?? 100_000);
const db = await createBenchDatabase('audit');
let failed = false;
try {
  const dataSource = createDataSource({ url: db.url, embedded: false, close: () => Promise.resolve() }, 10);
  await dataSource.initialize();
  await dataSource.runMigrations({ transaction: 'each' });

  const writer = new AuditWriter(dataSource);
  const hook = new AuditLogHook(writer);
  const orgId = randomUUID();
  const userId = randomUUID();
  const agentId = randomUUID();
  const runId = randomUUID();
  const signal = new AbortController().signal;
  const emit = () => Promise.resolve();
  const call = (i: number): HookContext => ({
    point: HookPoint.PostToolUse,
    toolName: 'oa__purchase_pay',
    toolArgs: { id: i, amount: 1200 + i, currency: 'EUR', lines: [{ sku: 'A-1', qty: 2 }] },
    toolResult: '{"status":"paid"}',
    agentId,
    userId,
    orgId,
    runId,
    callId: `call_${i}`,
    surface: 'chat',
    emit,
    signal,
    metadata: {
      connector: {
        id: 'oa',
        name: 'oa',
        action: 'purchase_pay',
        method: 'POST',
        url: `http://oa.internal/purchases/${i}/pay`,
      },
      execution: { status: 200, durationMs: 12, success: true },
    },
  });

  const started = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) {
    await hook.execute(call(i), {});
    // Calls arrive from many runs; let the writer's I/O interleave with them as it would in the server.
    if (i % 200 === 199) await new Promise((r) => setImmediate(r));
  }
  const recordedMs = Number(process.hrtime.bigint() - started) / 1e6;
  await writer.drain();
  const totalMs = Number(process.hrtime.bigint() - started) / 1e6;

  const [{ n }] = await dataSource.query<Array<{ n: number }>>(
    'SELECT count(*)::int AS n FROM connector_call_logs WHERE run_id = $1',
    [runId],
  );
  await dataSource.destroy();

  const perS = Math.round(CALLS / (totalMs / 1000));
  console.log(
    `audit_log: ${CALLS} calls in ${totalMs.toFixed(0)} ms (calls recorded in ${recordedMs.toFixed(0)} ms, rest is the final flush)`,
  );
  console.log(
    `  throughput: ${perS} calls/s written (target >= ${TARGET_PER_S}/s): ${perS >= TARGET_PER_S ? 'OK' : 'BELOW TARGET'}`,
  );
  console.log(`  rows written ${n} / calls made ${CALLS}: ${n === CALLS ? 'equal' : 'MISMATCH'}`);
  console.log(
    `  ${writer.stats.inserts} INSERT statements (${(CALLS / writer.stats.inserts).toFixed(0)} rows each on average)`,
  );
  failed = n !== CALLS || perS < TARGET_PER_S;
} finally {
  await db.drop();
}
process.exit(failed ? 1 : 0);
