import { jest } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { until } from '../support/eventually.js';
import { bootExpectingFailure, startServerProcess, type ServerProcess } from '../support/server-process.js';

async function printedToken(server: ServerProcess): Promise<string> {
  return until('the printed token', () => /export TOKEN=(\S+)/.exec(server.output())?.[1], 10_000, 100).catch(
    (err: unknown) => {
      throw new Error(`${(err as Error).message}:\n${server.output()}`);
    },
  );
}

jest.setTimeout(120_000);

describe('embedded PGlite default (npm start)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'warden-pglite-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serves health on PGlite, seeds once, and keeps data across restarts', async () => {
    // What `npm start` runs: no NODE_ENV, so development defaults (dev auth, demo seed).
    const env = { NODE_ENV: 'development', PGLITE_DIR: path.join(dir, 'pglite') };
    const first = await startServerProcess(env, { timeoutMs: 60_000 });
    try {
      const health = (await (await fetch(`${first.url}/api/health`)).json()) as { status: string };
      expect(health.status).toBe('ok');
      const token = await printedToken(first);
      const me = await (await fetch(`${first.url}/api/me`, { headers: { authorization: `Bearer ${token}` } })).json();
      expect(me).toMatchObject({ sub: 'demo-admin', org: 'demo', roles: ['admin'] });
    } finally {
      await first.stop();
    }
    const second = await startServerProcess(env, { timeoutMs: 60_000 });
    try {
      const token = await printedToken(second);
      const users = (await (
        await fetch(`${second.url}/api/users`, { headers: { authorization: `Bearer ${token}` } })
      ).json()) as Array<{
        sub: string;
      }>;
      expect(users.map((u: { sub: string }) => u.sub)).toEqual(['demo-admin']);
    } finally {
      await second.stop();
    }
  });

  it.each([
    [{ PORT: 'abc' }, /PORT="abc"/],
    [{ AUTH_MODE: 'oidc' }, /OIDC_ISSUER/],
  ])('a bad config value stops the boot naming it (%j)', async (env, message) => {
    const { code, output } = await bootExpectingFailure({ PGLITE_DIR: path.join(dir, 'unused'), ...env });
    expect(code).not.toBe(0);
    expect(output).toMatch(message);
  });
});

describe('PostgreSQL via DATABASE_URL', () => {
  it('runs migrations at start on an empty database', async () => {
    const admin = new pg.Client({
      connectionString: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    });
    await admin.connect();
    const name = `wt_empty_${process.pid}_${Date.now()}`;
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
    url.pathname = `/${name}`;
    const server = await startServerProcess({
      NODE_ENV: 'development',
      DATABASE_URL: url.toString(),
      SEED_DEMO: 'false',
    });
    try {
      const c = new pg.Client({ connectionString: url.toString() });
      await c.connect();
      const { rows } = await c.query(`SELECT count(*)::int AS n FROM migrations`);
      await c.end();
      expect(rows[0].n).toBeGreaterThan(0);
    } finally {
      await server.stop();
      const a = new pg.Client({
        connectionString: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
      });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    }
  });
});
