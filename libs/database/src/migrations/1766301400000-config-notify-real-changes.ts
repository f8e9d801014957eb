import type { MigrationInterface, QueryRunner } from 'typeorm';

const BODY = (
  skipUnchanged: boolean,
) => `CREATE OR REPLACE FUNCTION warden_config_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        now_org text;
        was_org text;
      BEGIN
        IF TG_LEVEL = 'STATEMENT' THEN
          PERFORM pg_notify('warden_config', '*');
          RETURN NULL;
        END IF;
        ${skipUnchanged ? `IF TG_OP = 'UPDATE' AND to_jsonb(OLD) = to_jsonb(NEW) THEN RETURN NULL; END IF;` : ''}
        IF TG_ARGV[0] = '*' THEN
          PERFORM pg_notify('warden_config', '*');
          RETURN NULL;
        END IF;
        IF TG_OP <> 'DELETE' THEN now_org := to_jsonb(NEW) ->> TG_ARGV[0]; END IF;
        IF TG_OP <> 'INSERT' THEN was_org := to_jsonb(OLD) ->> TG_ARGV[0]; END IF;
        IF now_org IS NOT NULL THEN PERFORM pg_notify('warden_config', now_org); END IF;
        IF was_org IS NOT NULL AND was_org IS DISTINCT FROM now_org THEN PERFORM pg_notify('warden_config', was_org); END IF;
        RETURN NULL;
      END $$`;

/**
 * Policy shadows join the announced configuration: every recorded decision asks for the org's active shadows.
 *
 * An UPDATE that leaves a row as it was announces nothing. Sign-in provisioning upserts the org on every cache miss
 * (`ON CONFLICT DO UPDATE` rewrites the row unchanged): announced, it dropped every cached config of the org, and the
 * principal cache that follows those notices dropped itself — so every request provisioned again and every run
 * re-read its agent, hooks and catalog (13 transactions per chat run instead of 5).
 */
export class ConfigNotifyRealChanges1766301400000 implements MigrationInterface {
  name = 'ConfigNotifyRealChanges1766301400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(BODY(true));
    await q.query(`CREATE TRIGGER policy_shadows_config_changed AFTER INSERT OR UPDATE OR DELETE ON policy_shadows
      FOR EACH ROW EXECUTE FUNCTION warden_config_changed('org_id')`);
    await q.query(`CREATE TRIGGER policy_shadows_config_truncated AFTER TRUNCATE ON policy_shadows
      FOR EACH STATEMENT EXECUTE FUNCTION warden_config_changed('*')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER policy_shadows_config_truncated ON policy_shadows`);
    await q.query(`DROP TRIGGER policy_shadows_config_changed ON policy_shadows`);
    await q.query(BODY(false));
  }
}
