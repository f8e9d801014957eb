import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Foundation1764460800000 implements MigrationInterface {
  name = 'Foundation1764460800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE orgs (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      external_id text NOT NULL UNIQUE,
      name text NOT NULL,
      read_only boolean NOT NULL DEFAULT false,
      default_channel_id uuid NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(`CREATE TABLE users (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      sub text NOT NULL UNIQUE,
      email text NULL,
      name text NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(`CREATE TABLE org_members (
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      roles text[] NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (org_id, user_id)
    )`);
    await q.query(`CREATE TABLE identities (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      platform text NOT NULL CHECK (platform IN ('feishu', 'slack', 'wecom')),
      external_id text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT identities_platform_external_uq UNIQUE (org_id, platform, external_id),
      CONSTRAINT identities_user_platform_uq UNIQUE (org_id, user_id, platform)
    )`);
    await q.query(`CREATE INDEX identities_user_idx ON identities (user_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE identities`);
    await q.query(`DROP TABLE org_members`);
    await q.query(`DROP TABLE users`);
    await q.query(`DROP TABLE orgs`);
  }
}
