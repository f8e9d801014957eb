/**
 * Prints every SQL statement one chat run (model -> one connector call -> answer) sends, grouped by transaction, from
 * PostgreSQL's own log (log_statement = 'all' on the trace's database). A tool for finding where a run's transactions
 * go (`npm run bench:trace`, after `npm run build`); TRACE_GATED=1 traces a run that waits for an approval, then the
 * approval and the rest of the run.
 */
import { readFileSync, statSync } from 'node:fs';
import { withAdmin } from './bench-database.js';
import { startPayBenchApp } from './pay-bench-app.js';

const LOG = process.env.PG_LOG ?? '/var/log/postgresql/postgresql-15-main.log';
const GATED = process.env.TRACE_GATED === '1';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const app = await startPayBenchApp('trace', {
  env: process.env.TRACE_IDLE ? {} : { RUN_RECOVERY_MS: '600000', CONFIRMATION_ESCALATION_POLL_MS: '600000' },
  beforeStart: (db) => withAdmin((c) => c.query(`ALTER DATABASE ${db.name} SET log_min_duration_statement = 0`)),
});
try {
  for (let i = 0; i < 3; i++) await app.chat('pay amount 100', 'done');
  await sleep(1500);
  let from = statSync(LOG).size;
  const IDLE = Number(process.env.TRACE_IDLE ?? 0);
  if (IDLE > 0) {
    // Runs waiting for approval with their streams open; then what the server sends while nothing happens.
    const streams = Array.from({ length: IDLE }, () => app.chat('pay amount 60000', 'confirmation_pending'));
    await Promise.all(streams);
    await sleep(3000);
    const at = statSync(LOG).size;
    await sleep(20_000);
    const idle = readFileSync(LOG, 'utf8')
      .slice(at)
      .split('\n')
      .filter((l) => l.includes(`@${app.db.name} `) && l.includes(' LOG: '));
    const byKind = new Map<string, number>();
    for (const l of idle) {
      const sql = /(?:statement|execute [^:]*):\s*(.*)$/.exec(l)?.[1]?.replace(/\s+/g, ' ').slice(0, 90) ?? '?';
      byKind.set(sql, (byKind.get(sql) ?? 0) + 1);
    }
    for (const [sql, n] of [...byKind].sort((x, y) => y[1] - x[1])) console.log(`${(n / 20).toFixed(2)}/s  ${sql}`);
    process.exit(0);
  }
  if (GATED) {
    // Warm the approval path first: the traced approval is the last of TRACE_GATED_WARM + 1.
    for (let i = 0; i < Number(process.env.TRACE_GATED_WARM ?? 5); i++) {
      const pending = await app.chat('pay amount 60000', 'confirmation_pending');
      const warm = /"confirmation_id":"([^"]+)"/.exec(pending)?.[1];
      await app.api('POST', `/api/confirmations/${warm}/decision`, { decision: 'approve' });
    }
    await sleep(1500);
    from = statSync(LOG).size;
    const text = await app.chat('pay amount 60000', 'confirmation_pending');
    const id = /"confirmation_id":"([^"]+)"/.exec(text)?.[1];
    await sleep(500);
    console.log('---- approval ----');
    await app.api('POST', `/api/confirmations/${id}/decision`, { decision: 'approve' });
  } else await app.chat('pay amount 100', 'done');
  await sleep(1500);
  const lines = readFileSync(LOG, 'utf8')
    .slice(from)
    .split('\n')
    .filter((l) => l.includes(`@${app.db.name} `) && / (LOG|ERROR): /.test(l));
  let tx = 0;
  let t0: number | undefined;
  for (const l of lines) {
    // "2026-12-01 16:40:01.123 UTC [pid] user@db LOG:  duration: 0.321 ms  execute <unnamed>: SQL"
    const m =
      /^\S+ (\d\d):(\d\d):([\d.]+) \S+ \[(\d+)\].*?(?:LOG|ERROR):\s+(?:duration: ([\d.]+) ms\s+)?(?:statement|execute [^:]*):\s*(.*)$/.exec(
        l,
      );
    if (!m) continue;
    const at = (Number(m[1]) * 60 + Number(m[2])) * 60_000 + Number(m[3]) * 1000;
    t0 ??= at;
    const sql = m[6].replace(/\s+/g, ' ').slice(0, 200);
    if (/^(BEGIN|START TRANSACTION)/i.test(sql)) tx++;
    console.log(`+${(at - t0).toFixed(0).padStart(5)} ms ${(m.at(5) ?? '?').padStart(6)} ms [${m[4]}] ${sql}`);
  }
  console.log(`explicit transactions: ${tx}; statements: ${lines.length}`);
} finally {
  await app.close();
}
process.exit(0);
