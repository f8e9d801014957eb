import { PolicyVersions1766200009000 } from '../../libs/database/src/migrations/1766200009000-policy-versions.js';
import type { QueryRunner } from 'typeorm';
import { mediumDb, type MediumDb } from './medium-db.js';

/**
 * The migration that introduces policy versions (#34) gives every existing agent and org hooks config its version 1
 * (an agent's: the policy keys of its config only), and versions cannot be rewritten afterwards.
 */
describe('migration: policy versions', () => {
  let db: MediumDb;
  const q = (sql: string, params: unknown[] = []) => db.dataSource.query(sql, params);

  beforeAll(async () => {
    db = await mediumDb();
  });
  afterAll(() => db.close());

  it('backfills version 1 of each existing agent policy and org hooks config', async () => {
    const migration = new PolicyVersions1766200009000();
    // The database is migrated: go back to before this migration, with agents and org hooks as they were then.
    await migration.down({ query: q } as unknown as QueryRunner);
    const hooks = { class_hooks: ['audit_log'] };
    const model = { provider: 'scripted', script: [{ content: 'ok' }] };
    const agent = async (name: string, config: Record<string, unknown>): Promise<string> =>
      (
        await q(`INSERT INTO agents (org_id, name, model_config_json) VALUES ($1, $2, $3) RETURNING id`, [
          db.orgId,
          name,
          config,
        ])
      )[0].id;
    const guarded = await agent('guarded', {
      model,
      tools: ['oa__*'],
      hooks,
      confirmation: { timeout_s: 60 },
      require_confirmation_for_all: true,
    });
    const plain = await agent('plain', { model });
    await q(`INSERT INTO org_hooks (org_id, hooks) VALUES ($1, $2)`, [db.orgId, hooks]);

    await migration.up({ query: q } as unknown as QueryRunner);

    const rows: Array<{ subject_type: string; subject_id: string; version: number; config: unknown }> = await q(
      `SELECT subject_type, subject_id, version, config FROM policy_versions WHERE org_id = $1 ORDER BY subject_type, subject_id`,
      [db.orgId],
    );
    const bySubject = Object.fromEntries(rows.map((r) => [`${r.subject_type}:${r.subject_id}`, [r.version, r.config]]));
    expect(bySubject).toEqual({
      [`agent:${guarded}`]: [1, { hooks, confirmation: { timeout_s: 60 }, require_confirmation_for_all: true }],
      [`agent:${plain}`]: [1, {}],
      [`org_hooks:${db.orgId}`]: [1, hooks],
    });
  });

  it('a version cannot be rewritten, and a second version n of a subject is refused', async () => {
    await expect(q(`UPDATE policy_versions SET config = '{}' WHERE org_id = $1`, [db.orgId])).rejects.toThrow(
      'policy versions are immutable',
    );
    await expect(
      q(
        `INSERT INTO policy_versions (subject_type, subject_id, version, org_id, config) VALUES ('org_hooks', $1, 1, $1, '{}')`,
        [db.orgId],
      ),
    ).rejects.toThrow(/duplicate key/);
  });
});
