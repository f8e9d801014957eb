import type { MigrationInterface, QueryRunner } from 'typeorm';

const OWNERS: Array<[table: string, kind: string]> = [
  ['connectors', 'connector'],
  ['mcp_servers', 'mcp_server'],
];

/** The prefix of an owner's tool names, as `toolNameOf` writes it (names are ASCII letters, digits, `_`, `-`). */
const PREFIX = (column: string) => `regexp_replace(lower(${column}), '[^a-z0-9]', '_', 'g')`;

/**
 * Tools are named `<owner>__<tool>`, the owner being a connector or an MCP server: one name per owner in an org,
 * whatever the kind. The triggers keep `tool_namespaces` in step with both tables in the writer's transaction, so
 * the primary key refuses a second owner of a name even when two admins save at the same moment.
 */
export class ToolNamespaces1766200002000 implements MigrationInterface {
  name = 'ToolNamespaces1766200002000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE tool_namespaces (
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      name text NOT NULL,
      owner_kind text NOT NULL CHECK (owner_kind IN ('connector', 'mcp_server')),
      owner_id uuid NOT NULL,
      owner_name text NOT NULL,
      CONSTRAINT tool_namespaces_pkey PRIMARY KEY (org_id, name),
      CONSTRAINT tool_namespaces_owner_uq UNIQUE (owner_kind, owner_id)
    )`);
    await q.query(`CREATE FUNCTION warden_tool_namespace_sync() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' THEN
          DELETE FROM tool_namespaces WHERE owner_kind = TG_ARGV[0] AND owner_id = OLD.id;
        END IF;
        IF TG_OP <> 'DELETE' THEN
          INSERT INTO tool_namespaces (org_id, name, owner_kind, owner_id, owner_name)
          VALUES (NEW.org_id, ${PREFIX('NEW.name')}, TG_ARGV[0], NEW.id, NEW.name);
        END IF;
        RETURN NULL;
      END $$`);
    // Rows saved before this rule: the first owner of a name keeps it (a shared name then resolves to no tool).
    const owners = OWNERS.map(
      ([table, kind]) => `SELECT org_id, ${PREFIX('name')}, '${kind}', id, name, created_at FROM ${table}`,
    );
    await q.query(`INSERT INTO tool_namespaces (org_id, name, owner_kind, owner_id, owner_name)
      SELECT org_id, prefix, kind, id, name FROM (${owners.join(' UNION ALL ')}) AS o (org_id, prefix, kind, id, name, created_at)
      ORDER BY created_at, kind ON CONFLICT DO NOTHING`);
    for (const [table, kind] of OWNERS)
      await q.query(`CREATE TRIGGER ${table}_tool_namespace AFTER INSERT OR DELETE OR UPDATE OF name, org_id ON ${table}
        FOR EACH ROW EXECUTE FUNCTION warden_tool_namespace_sync('${kind}')`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const [table] of OWNERS) await q.query(`DROP TRIGGER ${table}_tool_namespace ON ${table}`);
    await q.query(`DROP FUNCTION warden_tool_namespace_sync()`);
    await q.query(`DROP TABLE tool_namespaces`);
  }
}
