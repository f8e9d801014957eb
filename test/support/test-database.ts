import { randomBytes } from 'node:crypto';
import { TEMPLATE_DB, urlFor, withAdmin } from './test-db.js';

export { ADMIN_URL, TEMPLATE_DB, urlFor, withAdmin } from './test-db.js';

/** A fresh database cloned from the migrated template. */
export async function createTestDatabase(): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const name = `wt_${TEMPLATE_DB.replace('warden_tpl_', '')}_${randomBytes(5).toString('hex')}`;
  await withAdmin(async (c) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await c.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DB}`);
        return;
      } catch (err) {
        // Two workers cloning the template at the same instant collide; try again shortly.
        if (attempt > 20 || !String(err).includes('being accessed by other users')) throw err;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  });
  return {
    name,
    url: urlFor(name),
    drop: () =>
      withAdmin(async (c) => {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }),
  };
}
