import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The tables whose rows every run reads, and the column naming their org (`*`: notify every org). */
const WATCHED: Array<[table: string, orgColumn: string]> = [
  ['orgs', 'id'],
  ['agents', 'org_id'],
  ['org_hooks', 'org_id'],
  ['connectors', 'org_id'],
  ['connector_actions', '*'],
  ['mcp_servers', 'org_id'],
];

/**
 * Every change of an org's run configuration sends NOTIFY `warden_config` (payload: the org id) at commit, whoever
 * makes it — the API or an operator in psql — so each instance's ConfigCache drops what it kept of that org.
 */
export class ConfigChangeNotify1766000000000 implements MigrationInterface {
  name = 'ConfigChangeNotify1766000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE FUNCTION warden_config_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        now_org text;
        was_org text;
      BEGIN
        IF TG_LEVEL = 'STATEMENT' OR TG_ARGV[0] = '*' THEN
          PERFORM pg_notify('warden_config', '*');
          RETURN NULL;
        END IF;
        IF TG_OP <> 'DELETE' THEN now_org := to_jsonb(NEW) ->> TG_ARGV[0]; END IF;
        IF TG_OP <> 'INSERT' THEN was_org := to_jsonb(OLD) ->> TG_ARGV[0]; END IF;
        IF now_org IS NOT NULL THEN PERFORM pg_notify('warden_config', now_org); END IF;
        IF was_org IS NOT NULL AND was_org IS DISTINCT FROM now_org THEN PERFORM pg_notify('warden_config', was_org); END IF;
        RETURN NULL;
      END $$`);
    for (const [table, column] of WATCHED) {
      await q.query(`CREATE TRIGGER ${table}_config_changed AFTER INSERT OR UPDATE OR DELETE ON ${table}
        FOR EACH ROW EXECUTE FUNCTION warden_config_changed('${column}')`);
      await q.query(`CREATE TRIGGER ${table}_config_truncated AFTER TRUNCATE ON ${table}
        FOR EACH STATEMENT EXECUTE FUNCTION warden_config_changed('*')`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const [table] of WATCHED) {
      await q.query(`DROP TRIGGER ${table}_config_truncated ON ${table}`);
      await q.query(`DROP TRIGGER ${table}_config_changed ON ${table}`);
    }
    await q.query(`DROP FUNCTION warden_config_changed()`);
  }
}
