import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { TEMPLATE_DB, urlFor, withAdmin } from './test-db.js';

/** Creates and migrates the template database that every test file clones (workers inherit its name). */
export default async function globalSetup() {
  process.env.WARDEN_TEST_TEMPLATE = TEMPLATE_DB;
  await withAdmin(async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DB} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${TEMPLATE_DB}`);
  });
  // The migrations are TypeScript; they run in a child process with the same loader as `npm run token`.
  execFileSync(
    process.execPath,
    [
      '--import',
      '@swc-node/register/esm-register',
      path.join(import.meta.dirname, 'migrate-template.ts'),
      urlFor(TEMPLATE_DB),
    ],
    {
      stdio: 'inherit',
      env: { ...process.env, NODE_OPTIONS: '' },
    },
  );
}
