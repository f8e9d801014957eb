import { randomBytes } from 'node:crypto';
import { urlFor, withAdmin } from '../test/support/test-db.js';

export { withAdmin } from '../test/support/test-db.js';

/**
 * An empty database of the bench's own on the test server (TEST_DATABASE_URL, default the local `test` database's
 * server); the caller migrates it and drops it at the end.
 */
export async function createBenchDatabase(
  label: string,
): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `warden_bench_${label}_${randomBytes(4).toString('hex')}`;
  await withAdmin((c) => c.query(`CREATE DATABASE ${name}`));
  return {
    name,
    url: urlFor(name),
    drop: () =>
      withAdmin(async (c) => {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }),
  };
}
