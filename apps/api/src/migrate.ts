/**
 * One-shot migration of the database at DATABASE_URL (or the embedded PGlite in PGLITE_DIR), then exit: what a
 * release runs once (the Kubernetes Job, the `migrate` service of compose.prod.yml) while its instances start with
 * DB_SKIP_MIGRATIONS=1. Safe to run twice at once (runMigrationsOnce takes turns on an advisory lock).
 */
import { createDataSource, resolveDatabaseTarget, runMigrationsOnce } from '@warden/database';

const target = await resolveDatabaseTarget({ url: process.env.DATABASE_URL, pgliteDir: process.env.PGLITE_DIR ?? './data/pglite' });
const dataSource = createDataSource(target, 1);
try {
  await dataSource.initialize();
  const applied = await runMigrationsOnce(dataSource);
  const names = applied.map((m) => m.name).join(', ');
  process.stdout.write(applied.length > 0 ? `applied ${applied.length} migration(s): ${names}\n` : 'no pending migrations\n');
} catch (err) {
  // The message names what failed (connection, the migration); the URL, which may hold a password, is not printed.
  console.error(`migration failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
} finally {
  if (dataSource.isInitialized) await dataSource.destroy();
  await target.close();
}
