// Plain JS: loaded both by Jest's global setup (outside the transform) and by the test files.
import pg from 'pg';

/** The server the tests use: TEST_DATABASE_URL, else the machine's PostgreSQL `test` database. */
export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** Migrated once per jest run by global-setup; every test file clones it into a fresh database. */
export const TEMPLATE_DB = process.env.WARDEN_TEST_TEMPLATE ?? `warden_tpl_${process.pid}`;

export function urlFor(database) {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${database}`;
  return u.toString();
}

export async function withAdmin(fn) {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
