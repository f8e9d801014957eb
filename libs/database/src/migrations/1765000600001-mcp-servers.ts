import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * MCP servers as tool sources: an org's server (streamable HTTP), its headers sealed like channel secrets, and the
 * admin's per-tool overrides (confirmation, read/write) over the server's annotations.
 */
export class McpServers1765000600001 implements MigrationInterface {
  name = 'McpServers1765000600001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE mcp_servers (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      name text NOT NULL,
      url text NOT NULL,
      sealed_headers text NOT NULL,
      header_keys text[] NOT NULL DEFAULT '{}',
      tool_overrides jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (org_id, name)
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE mcp_servers`);
  }
}
