import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Human approvals. One row per gated tool call (unique run + call, so a re-driven run finds its row again).
 * The approver policy (scope, owner, self-approval) is copied into the row when it is created, so a later
 * change to the agent cannot widen who may decide a request already sent.
 */
export class Confirmations1764460803000 implements MigrationInterface {
  name = 'Confirmations1764460803000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE confirmation_requests (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      agent_id uuid NULL,
      agent_name text NULL,
      run_id uuid NOT NULL,
      call_id text NOT NULL,
      tool text NOT NULL,
      args jsonb NOT NULL DEFAULT '{}'::jsonb,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected', 'expired')),
      requested_by uuid NULL REFERENCES users(id) ON DELETE SET NULL,
      approver_scope text NOT NULL CHECK (approver_scope IN ('initiator', 'agent_owner', 'org_members', 'org_admins')),
      agent_owner_id uuid NULL,
      forbid_self_approval boolean NOT NULL DEFAULT false,
      channel_id text NULL,
      channel_type text NULL,
      platform_message_id text NULL,
      sent_card jsonb NULL,
      expires_at timestamptz NOT NULL,
      responded_at timestamptz NULL,
      responded_by_user_id uuid NULL REFERENCES users(id) ON DELETE SET NULL,
      responded_by_open_id text NULL,
      responded_by_platform text NULL,
      responded_by_name text NULL,
      reason text NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT confirmation_requests_run_call_uq UNIQUE (run_id, call_id)
    )`);
    await q.query(
      `CREATE INDEX confirmation_requests_org_created_idx ON confirmation_requests (org_id, created_at DESC)`,
    );
    await q.query(
      `CREATE INDEX confirmation_requests_pending_idx ON confirmation_requests (expires_at) WHERE status = 'pending'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE confirmation_requests`);
  }
}
