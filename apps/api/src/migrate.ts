/**
 * One-shot migration of the database at DATABASE_URL (or the embedded PGlite in PGLITE_DIR), then exit: what a
 * release runs once (the Kubernetes Job, the `migrate` service of compose.prod.yml) while its instances start with
 * DB_SKIP_MIGRATIONS=1. Safe to run twice at once (runMigrationsOnce takes turns on an advisory lock).
 * `--wait` migrates nothing: it exits once every migration this build knows is applied (a pod's init container, so
 * a new release's server starts only after its Job has expanded the schema).
 */
import { createDataSource, resolveDatabaseTarget, runMigrationsOnce } from '@warden/database';
import type { DataSource } from 'typeorm';

const WAIT_POLL_MS = 2_000;

async function migrate(dataSource: DataSource): Promise<string> {
  const applied = await runMigrationsOnce(dataSource);
  return applied.length > 0
    ? `applied ${applied.length} migration(s): ${applied.map((m) => m.name).join(', ')}`
    : 'no pending migrations';
}

/** Names of this build's migrations the database has not applied (read only: the Job creates the table). */
async function pendingMigrations(dataSource: DataSource): Promise<string[]> {
  const [{ table }] = await dataSource.query<Array<{ table: string | null }>>(
    `SELECT to_regclass('migrations') AS "table"`,
  );
  const applied = table ? await dataSource.query<Array<{ name: string }>>('SELECT name FROM migrations') : [];
  const names = new Set(applied.map((row) => row.name));
  return dataSource.migrations.map((m) => m.name ?? m.constructor.name).filter((name) => !names.has(name));
}

async function waitForMigrations(dataSource: DataSource): Promise<string> {
  let pending = await pendingMigrations(dataSource);
  if (pending.length > 0)
    process.stdout.write(`waiting for the migration Job to apply ${pending.length} migration(s)\n`);
  while (pending.length > 0) {
    await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
    pending = await pendingMigrations(dataSource);
  }
  return 'no pending migrations';
}

const target = await resolveDatabaseTarget({
  url: process.env.DATABASE_URL,
  pgliteDir: process.env.PGLITE_DIR ?? './data/pglite',
});
const dataSource = createDataSource(target, 1);
try {
  await dataSource.initialize();
  const outcome = process.argv.includes('--wait') ? await waitForMigrations(dataSource) : await migrate(dataSource);
  process.stdout.write(`${outcome}\n`);
} catch (err) {
  // The message names what failed (connection, the migration); the URL, which may hold a password, is not printed.
  console.error(`migration failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
} finally {
  if (dataSource.isInitialized) await dataSource.destroy();
  await target.close();
}
