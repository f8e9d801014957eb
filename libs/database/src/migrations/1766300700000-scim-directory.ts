import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SCIM 2.0 provisioning (#33). A member the directory manages (`directory_managed`) takes its roles and its active
 * state from the directory, never from token claims; a deactivated member (`active = false`) is refused at once.
 * SCIM bearer tokens are per org and stored as a SHA-256 hash; groups and their members mirror the directory's.
 */
export class ScimDirectory1766300700000 implements MigrationInterface {
  name = 'ScimDirectory1766300700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE org_members
      ADD COLUMN active boolean NOT NULL DEFAULT true,
      ADD COLUMN directory_managed boolean NOT NULL DEFAULT false,
      ADD COLUMN scim_external_id text`);
    await q.query(`CREATE TABLE scim_tokens (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL CONSTRAINT scim_tokens_org_id_fkey REFERENCES orgs(id) ON DELETE CASCADE,
      token_hash text NOT NULL CONSTRAINT scim_tokens_token_hash_key UNIQUE,
      label text,
      created_by uuid CONSTRAINT scim_tokens_created_by_fkey REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      revoked_at timestamptz
    )`);
    await q.query(`CREATE INDEX scim_tokens_org_idx ON scim_tokens (org_id)`);
    await q.query(`CREATE TABLE scim_groups (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL CONSTRAINT scim_groups_org_id_fkey REFERENCES orgs(id) ON DELETE CASCADE,
      display_name text NOT NULL,
      external_id text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT scim_groups_org_name_key UNIQUE (org_id, display_name)
    )`);
    await q.query(`CREATE TABLE scim_group_members (
      group_id uuid NOT NULL CONSTRAINT scim_group_members_group_id_fkey REFERENCES scim_groups(id) ON DELETE CASCADE,
      user_id uuid NOT NULL CONSTRAINT scim_group_members_user_id_fkey REFERENCES users(id) ON DELETE CASCADE,
      PRIMARY KEY (group_id, user_id)
    )`);
    await q.query(`CREATE INDEX scim_group_members_user_idx ON scim_group_members (user_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE scim_group_members`);
    await q.query(`DROP TABLE scim_groups`);
    await q.query(`DROP TABLE scim_tokens`);
    await q.query(
      `ALTER TABLE org_members DROP COLUMN active, DROP COLUMN directory_managed, DROP COLUMN scim_external_id`,
    );
  }
}
