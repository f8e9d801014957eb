import type pg from 'pg';
import { until } from '../support/eventually.js';
import type { TestApp } from '../support/test-app.js';
import { startOaApp, type OaApp } from './oa-app.js';

/** #34 (versions): concurrent saves of one policy get distinct, consecutive version numbers, in commit order. */
describe('policy versions under concurrent saves', () => {
  let app: OaApp;
  let t: TestApp;
  let db: pg.Client;
  let admin: string;
  const payScript = (id: string) => ({
    model: {
      provider: 'scripted',
      script: [{ tool_calls: [{ name: 'oa__purchase_pay', args: { id, amount: 10 } }] }, { content: 'done' }],
    },
    tools: ['oa__*'],
  });
  const req = (method: string, path: string, body?: unknown) => t.request(method, path, { token: admin, body });

  beforeAll(async () => {
    app = await startOaApp(() => ({ ok: true }));
    ({ t, db, admin } = app);
  });
  afterAll(async () => {
    await app?.close();
  });

  /** Holds `lockSql` in a transaction until `saves` are all waiting on a lock, then lets them go together. */
  async function racing<T>(lockSql: string, params: unknown[], saves: Array<() => Promise<T>>): Promise<T[]> {
    const holder = new (db.constructor as typeof pg.Client)({ connectionString: t.databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(lockSql, params);
      const pending = saves.map((save) => save());
      // The barrier: every save is inside its transaction, waiting on a lock (ours, or one of another save).
      await until('every save waits on a lock', async () => {
        const { rows } = await db.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        return rows[0].n >= saves.length ? true : undefined;
      });
      await holder.query('COMMIT');
      return await Promise.all(pending);
    } finally {
      await holder.end();
    }
  }

  it('concurrent saves of one agent get distinct consecutive versions; the last one is the policy in force', async () => {
    const agent = await req('POST', '/api/agents', {
      name: 'raced',
      instructions: 'x',
      model_config_json: payScript('PO-V-4'),
    });
    const id = agent.body.id as string;
    const timeouts = [11, 12, 13, 14, 15, 16];
    const body = (s: number) => ({
      name: 'raced',
      instructions: 'x',
      model_config_json: { ...payScript('PO-V-4'), confirmation: { timeout_s: s } },
    });
    const results = await racing(
      `SELECT 1 FROM agents WHERE id = $1 FOR UPDATE`,
      [id],
      timeouts.map((s) => () => req('PUT', `/api/agents/${id}`, body(s))),
    );
    expect(results.map((r) => r.status)).toEqual(timeouts.map(() => 200));
    const versions = (await req('GET', `/api/agents/${id}/versions`)).body as Array<{ version: number }>;
    expect(versions.map((v) => v.version)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const configs = await Promise.all(
      versions
        .slice(1)
        .map(async (v) => (await req('GET', `/api/agents/${id}/versions/${v.version}`)).body.model_config_json),
    );
    expect(configs.map((c) => c.confirmation.timeout_s).sort()).toEqual(timeouts);
    const current = (await req('GET', `/api/agents/${id}`)).body.model_config_json;
    expect(current.confirmation).toEqual(configs.at(-1).confirmation);
  });

  it('concurrent saves of the org hooks get distinct consecutive versions', async () => {
    expect((await req('PUT', '/api/org/hooks', {})).status).toBe(200);
    const orgId = (await db.query(`SELECT org_id FROM org_hooks LIMIT 1`)).rows[0].org_id as string;
    const before = ((await req('GET', '/api/org/hooks/versions')).body as unknown[]).length;
    const caps = [21, 22, 23, 24, 25];
    const results = await racing(
      `SELECT 1 FROM org_hooks WHERE org_id = $1 FOR UPDATE`,
      [orgId],
      caps.map(
        (n) => () =>
          req('PUT', '/api/org/hooks', { class_hooks: [{ name: 'result_truncate', config: { max_chars: n * 100 } }] }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(caps.map(() => 200));
    const versions = (await req('GET', '/api/org/hooks/versions')).body as Array<{ version: number }>;
    expect(versions.map((v) => v.version)).toEqual(Array.from({ length: before + caps.length }, (_, i) => i + 1));
    const last = (await req('GET', `/api/org/hooks/versions/${versions.at(-1)!.version}`)).body.hooks;
    expect((await req('GET', '/api/org/hooks')).body.hooks).toEqual(last);
    await req('PUT', '/api/org/hooks', {});
  });
});
