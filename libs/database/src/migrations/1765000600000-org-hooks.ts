import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Org-wide hooks (PUT /api/org/hooks): one `model_config_json.hooks`-shaped config per org, added to the registry of
 * every run of every agent of the org.
 */
export class OrgHooks1765000600000 implements MigrationInterface {
  name = 'OrgHooks1765000600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE org_hooks (
      org_id uuid PRIMARY KEY REFERENCES orgs(id) ON DELETE CASCADE,
      hooks jsonb NOT NULL,
      updated_by uuid,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE org_hooks`);
  }
}
