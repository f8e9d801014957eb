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
import { withAdmin } from './bench-database.js';
import { startPayBenchApp } from './pay-bench-app.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 50);
const IDLE = (process.env.BENCH_IDLE ?? '100,1000,2000').split(',').map(Number);
const WINDOW_S = Number(process.env.BENCH_WINDOW_S ?? 10);
// PostgreSQL publishes a backend's statistics at most once a second, and an idle backend's up to 10 s late.
const STATS_LAG_MS = 11_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const app = await startPayBenchApp('engine', { env: { DB_POOL_SIZE: '20' } });
const commits = () =>
  withAdmin(async (c) =>
    Number(
      (
        await c.query<{ n: string }>(
          `SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1`,
          [app.db.name],
        )
      ).rows[0].n,
    ),
  );
let failed = false;
const streams: AbortController[] = [];
/** Opens a chat stream that stays open (until aborted) once `until` was seen. */
const open = async (message: string, until: string) => {
  const abort = new AbortController();
  const text = await app.chat(message, until, abort);
  if (!text.includes(`event: ${until}`)) throw new Error(`the stream ended before ${until}: ${text.slice(-300)}`);
  return abort;
};
try {
  for (let i = 0; i < 3; i++) await open('pay amount 100', 'done');
  await sleep(STATS_LAG_MS);
  const before = await commits();
  for (let i = 0; i < RUNS; i++) await open('pay amount 100', 'done');
  await sleep(STATS_LAG_MS);
  const perRun = ((await commits()) - before) / RUNS;
  console.log(
    `(a) transactions per chat run (1 tool call), over ${RUNS} runs: ${perRun.toFixed(1)}  (target <= 8; LangGraph.js 10)`,
  );
  console.log('    includes the background loops of those seconds (lease keeper, recovery, approval waiter)');

  let waiting = 0;
  for (const n of IDLE) {
    for (; waiting < n; waiting++) streams.push(await open(`pay amount ${60_000 + waiting}`, 'confirmation_pending'));
    await sleep(STATS_LAG_MS);
    const start = await commits();
    await sleep(WINDOW_S * 1000);
    const rate = ((await commits()) - start) / WINDOW_S;
    console.log(
      `(b) idle with ${n} runs waiting for approval (streams open): ${rate.toFixed(2)} transactions/s  (target <= 2/s, flat)`,
    );
  }
} catch (err) {
  failed = true;
  console.error('bench failed:', err);
} finally {
  for (const s of streams) s.abort();
  await app.close();
}
process.exit(failed ? 1 : 0);
