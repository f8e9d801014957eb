import { TEMPLATE_DB, withAdmin } from './test-db.js';

/** Drops the template and every database the test files cloned from it. */
export default async function globalTeardown() {
  const suffix = TEMPLATE_DB.replace('warden_tpl_', '');
  await withAdmin(async (c) => {
    const { rows } = await c.query(`SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname = $2`, [
      `wt\\_${suffix}\\_%`,
      TEMPLATE_DB,
    ]);
    for (const { datname } of rows) await c.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
  });
}
