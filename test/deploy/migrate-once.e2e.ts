import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { MIGRATIONS } from '@warden/database';
import { ensureBuilt } from '../support/server-process.js';
import { urlFor, withAdmin } from '../support/test-database.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** `node dist/apps/api/src/migrate.js` as the migration Job runs it: exit code and output. */
function runMigrate(url: string): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ['dist/apps/api/src/migrate.js'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, DATABASE_URL: url, NODE_ENV: 'production' },
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out })));
}

describe('the one-shot migration entry point (what the release Job runs)', () => {
  const name = `wt_migrate_${randomBytes(5).toString('hex')}`;
  const url = urlFor(name);

  beforeAll(async () => {
    ensureBuilt();
    // An empty database, not the migrated template: this is a first install.
    await withAdmin((c) => c.query(`CREATE DATABASE ${name}`));
  }, 240_000);
  afterAll(() => withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)));

  it('two runs started at once both succeed, every migration is applied exactly once, a later run finds none pending', async () => {
    const [a, b] = await Promise.all([runMigrate(url), runMigrate(url)]);
    expect([a.code, b.code]).toEqual([0, 0]);
    const outputs = [a.out, b.out].sort();
    expect(outputs[0]).toContain(`applied ${MIGRATIONS.length} migration(s)`);
    expect(outputs[1]).toBe('no pending migrations\n');

    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: string; distinct_names: string }>(
        'SELECT count(*) AS n, count(DISTINCT name) AS distinct_names FROM migrations',
      );
      expect(rows[0]).toEqual({ n: String(MIGRATIONS.length), distinct_names: String(MIGRATIONS.length) });
    } finally {
      await client.end();
    }

    expect(await runMigrate(url)).toEqual({ code: 0, out: 'no pending migrations\n' });
  }, 120_000);

  it('a database it cannot reach: exit 1 with the reason, without printing the URL (it may hold a password)', async () => {
    const { code, out } = await runMigrate('postgres://warden:s3cret-pw@127.0.0.1:1/none');
    expect(code).toBe(1);
    expect(out).toMatch(/^migration failed: .*ECONNREFUSED/m);
    expect(out).not.toContain('s3cret-pw');
  }, 60_000);
});
