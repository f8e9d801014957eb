import { MigrationExecutor, type DataSource, type Migration } from 'typeorm';

/**
 * Session advisory lock held while migrating: instances (or a migration Job and an instance) that migrate the same
 * database at once take turns, and the second finds nothing pending. Any fixed bigint; only migrations use it.
 */
export const MIGRATION_LOCK_KEY = 7_366_200_008;

/**
 * Applies the pending migrations (one transaction each) under MIGRATION_LOCK_KEY. One session does both, so it works on
 * a single-connection pool (the embedded PGlite) too. `onPending` hears how many are about to run (none: not called).
 */
export async function runMigrationsOnce(
  dataSource: DataSource,
  onPending?: (count: number) => void,
): Promise<Migration[]> {
  const session = dataSource.createQueryRunner();
  await session.connect();
  try {
    await session.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      const executor = new MigrationExecutor(dataSource, session);
      executor.transaction = 'each';
      const pending = (await executor.getPendingMigrations()).length;
      if (pending > 0) onPending?.(pending);
      return await executor.executePendingMigrations();
    } finally {
      await session.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await session.release();
  }
}
