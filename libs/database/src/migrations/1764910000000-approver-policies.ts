import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who may approve (issue #14). A request carries the approver policy and tier that applied when it was created
 * (`approvers` null = the legacy `approver_scope`), and how many distinct approvals it needs; each person's vote is a
 * row of `confirmation_votes`, unique per person, so a second approval from the same person changes nothing.
 * Chat identities are linked only through a one-time code sent to that identity (`identity_link_codes`, hashed),
 * or by an admin; every link and unlink is recorded in `identity_audit`.
 */
export class ApproverPolicies1764910000000 implements MigrationInterface {
  name = 'ApproverPolicies1764910000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE confirmation_requests
      ADD COLUMN approvers jsonb NULL,
      ADD COLUMN tier integer NULL,
      ADD COLUMN approvals_required integer NOT NULL DEFAULT 1 CHECK (approvals_required BETWEEN 1 AND 5),
      ADD COLUMN approvals_given integer NOT NULL DEFAULT 0,
      ADD COLUMN decisive_fields jsonb NULL`);
    await q.query(`CREATE TABLE confirmation_votes (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      confirmation_id uuid NOT NULL REFERENCES confirmation_requests(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      user_name text NOT NULL,
      decision text NOT NULL CHECK (decision IN ('approve', 'reject')),
      platform text NULL,
      external_id text NULL,
      approvers jsonb NOT NULL,
      tier integer NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT confirmation_votes_person_uq UNIQUE (confirmation_id, user_id)
    )`);
    await q.query(`CREATE TABLE identity_link_codes (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      platform text NOT NULL CHECK (platform IN ('feishu', 'slack', 'wecom')),
      external_id text NOT NULL,
      channel_id uuid NOT NULL,
      code_hash text NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      expires_at timestamptz NOT NULL,
      consumed_at timestamptz NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(`CREATE INDEX identity_link_codes_user_idx ON identity_link_codes (org_id, user_id)`);
    await q.query(`CREATE TABLE identity_audit (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      platform text NOT NULL,
      external_id text NULL,
      previous_external_id text NULL,
      action text NOT NULL CHECK (action IN ('link', 'unlink', 'relink')),
      method text NOT NULL CHECK (method IN ('admin', 'proof', 'self', 'sso')),
      by_user_id uuid NULL REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(`CREATE INDEX identity_audit_org_created_idx ON identity_audit (org_id, created_at DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE identity_audit`);
    await q.query(`DROP TABLE identity_link_codes`);
    await q.query(`DROP TABLE confirmation_votes`);
    await q.query(
      `ALTER TABLE confirmation_requests DROP COLUMN decisive_fields, DROP COLUMN approvals_given, DROP COLUMN approvals_required, DROP COLUMN tier, DROP COLUMN approvers`,
    );
  }
}
