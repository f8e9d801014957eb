import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { MIGRATIONS } from '@warden/database';
import { ensureBuilt } from '../support/server-process.js';
import { urlFor, withAdmin } from '../support/test-database.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

interface MigrateProcess {
  exited: Promise<{ code: number | null; out: string }>;
  /** Resolves once the output contains `text`. */
  printed(text: string): Promise<void>;
}

/** `node dist/apps/api/src/migrate.js [args]` as the migration Job (or, with --wait, a pod's init container) runs it. */
function startMigrate(url: string, args: string[] = []): MigrateProcess {
  const child = spawn(process.execPath, ['dist/apps/api/src/migrate.js', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, DATABASE_URL: url, NODE_ENV: 'production' },
  });
  let out = '';
  const waiters: Array<() => void> = [];
  const collect = (d: Buffer) => {
    out += d.toString();
    waiters.splice(0).forEach((wake) => wake());
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<{ code: number | null; out: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, out })),
  );
  const printed = async (text: string) => {
    while (!out.includes(text)) {
      if (child.exitCode !== null) throw new Error(`exited without printing ${text}: ${out}`);
      await new Promise<void>((wake) => waiters.push(wake));
    }
  };
  return { exited, printed };
}
const runMigrate = (url: string) => startMigrate(url).exited;

describe('the one-shot migration entry point (what the release Job runs)', () => {
  let name = '';
  let url = '';

  beforeAll(() => ensureBuilt(), 240_000);
  beforeEach(async () => {
    // An empty database, not the migrated template: this is a first install.
    name = `wt_migrate_${randomBytes(5).toString('hex')}`;
    url = urlFor(name);
    await withAdmin((c) => c.query(`CREATE DATABASE ${name}`));
  });
  afterEach(() => withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)));

  it('--wait (the init container) waits while migrations are pending and exits once the Job applied them', async () => {
    const waiting = startMigrate(url, ['--wait']);
    await waiting.printed(`waiting for the migration Job to apply ${MIGRATIONS.length} migration(s)`);
    expect(await runMigrate(url)).toMatchObject({
      code: 0,
      out: expect.stringContaining(`applied ${MIGRATIONS.length} migration(s)`),
    });
    expect(await waiting.exited).toEqual({ code: 0, out: expect.stringMatching(/\nno pending migrations\n$/) });
    expect(await startMigrate(url, ['--wait']).exited).toEqual({ code: 0, out: 'no pending migrations\n' });
  }, 120_000);

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
