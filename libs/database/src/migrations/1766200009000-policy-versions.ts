import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Policy versions (#34): every change of an agent's policy (`model_config_json.hooks`, `.confirmation`,
 * `.require_confirmation_for_all`) or of an org's hooks is kept as an immutable, numbered version — written in the
 * transaction of the change, numbered per subject (the primary key refuses a second version n). One table for both
 * kinds of subject, owned by the hooks library (PolicyVersions). Existing agents and org hooks get their version 1.
 */
export class PolicyVersions1766200009000 implements MigrationInterface {
  name = 'PolicyVersions1766200009000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE policy_versions (
      subject_type text NOT NULL CONSTRAINT policy_versions_subject_type_check CHECK (subject_type IN ('agent', 'org_hooks')),
      subject_id uuid NOT NULL,
      version integer NOT NULL CONSTRAINT policy_versions_version_check CHECK (version > 0),
      org_id uuid NOT NULL CONSTRAINT policy_versions_org_id_fkey REFERENCES orgs(id) ON DELETE CASCADE,
      config jsonb NOT NULL,
      created_by uuid,
      comment text,
      rolled_back_to integer,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (subject_type, subject_id, version)
    )`);
    // Immutable: a version is never rewritten (rows go only with their org).
    await q.query(`CREATE FUNCTION policy_versions_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'policy versions are immutable'; END $$`);
    await q.query(`CREATE TRIGGER policy_versions_no_update BEFORE UPDATE ON policy_versions
      FOR EACH ROW EXECUTE FUNCTION policy_versions_immutable()`);
    await q.query(`INSERT INTO policy_versions (subject_type, subject_id, version, org_id, config, created_by, comment, created_at)
      SELECT 'agent', a.id, 1, a.org_id,
             COALESCE((SELECT jsonb_object_agg(e.key, e.value) FROM jsonb_each(a.model_config_json) e
                        WHERE e.key IN ('hooks', 'confirmation', 'require_confirmation_for_all')), '{}'::jsonb),
             NULL, 'recorded when versions were introduced', a.updated_at
        FROM agents a`);
    await q.query(`INSERT INTO policy_versions (subject_type, subject_id, version, org_id, config, created_by, comment, created_at)
      SELECT 'org_hooks', h.org_id, 1, h.org_id, h.hooks, h.updated_by, 'recorded when versions were introduced', h.updated_at
        FROM org_hooks h`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE policy_versions`);
    await q.query(`DROP FUNCTION policy_versions_immutable()`);
  }
}
