/**
 * Statements per second of an instance with nothing to do (issue 30: the target is 0), counted inside a real server
 * process by the `pg` preload test/support/statement-counter.cjs, at the default intervals (or the env's). Prints
 * the figure over IDLE_WINDOW_S seconds (default 60) after the instance settled.
 *
 *   npm run bench:idle            (TEST_DATABASE_URL picks the PostgreSQL server; a database of its own is made)
 */
import path from 'node:path';
import { startServerProcess, type ServerProcess } from '../test/support/server-process.js';
import { createBenchDatabase } from './bench-database.js';

const COUNTER = path.resolve(import.meta.dirname, '../test/support/statement-counter.cjs');
const WINDOW_S = Number(process.env.IDLE_WINDOW_S ?? 60);

interface Report {
  ticks: number;
  statements: number;
  recent: string[];
}

function lastReport(server: ServerProcess): Report | undefined {
  const lines = server.output().match(/\[statement-counter\] .*/g);
  return lines ? (JSON.parse(lines[lines.length - 1].slice('[statement-counter] '.length)) as Report) : undefined;
}

async function afterTicks(server: ServerProcess, ticks: number): Promise<Report> {
  for (;;) {
    const report = lastReport(server);
    if (report && report.ticks >= ticks) return report;
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function main(): Promise<void> {
  const db = await createBenchDatabase('idle');
  let server: ServerProcess | undefined;
  try {
    server = await startServerProcess(
      {
        DATABASE_URL: db.url,
        AUTH_MODE: 'dev',
        AUTH_DEV_SECRET: 'idle-bench-dev-secret-0123456789abcdef',
        APP_ENCRYPTION_KEY: 'idle-bench-encryption-key-0123456789abcdef',
        SEED_DEMO: 'false',
        STATEMENT_COUNTER_TICK_MS: '1000',
      },
      { nodeArgs: ['--require', COUNTER], timeoutMs: 120_000 },
    );
    const settled = await afterTicks(server, (lastReport(server)?.ticks ?? 0) + 5);
    const later = await afterTicks(server, settled.ticks + WINDOW_S);
    const perSecond = (later.statements - settled.statements) / (later.ticks - settled.ticks);
    console.log(`idle statements/s over ${later.ticks - settled.ticks} s: ${perSecond.toFixed(3)} (target 0)`);
    if (perSecond > 0) console.log(`last statements: ${JSON.stringify(later.recent, null, 1)}`);
  } finally {
    server?.child.kill('SIGKILL');
    await server?.exited;
    await db.drop();
  }
}

await main();
