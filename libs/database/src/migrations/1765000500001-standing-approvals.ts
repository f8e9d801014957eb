import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Approve for this run (issue #20). An approver may approve "this call and similar ones in this run": same tool, args
 * within a CEL bound, at most `max_calls` calls (the approved one included) until `expires_at`. Each call that passes
 * under it is a row of `standing_approval_uses` (unique per call, so a resumed call never uses it twice), and the
 * counter is taken by one conditional UPDATE, so parallel calls cannot exceed it. The audit row of a connector call
 * names the approval it ran under (`connector_call_logs.approved_by`).
 */
export class StandingApprovals1765000500001 implements MigrationInterface {
  name = 'StandingApprovals1765000500001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE standing_approvals (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      run_id uuid NOT NULL,
      tool text NOT NULL,
      condition text NOT NULL,
      max_calls integer NOT NULL CHECK (max_calls BETWEEN 1 AND 1000),
      uses integer NOT NULL DEFAULT 1,
      expires_at timestamptz NOT NULL,
      confirmation_id uuid NOT NULL UNIQUE REFERENCES confirmation_requests(id) ON DELETE CASCADE,
      granted_by_user_id uuid NULL REFERENCES users(id) ON DELETE SET NULL,
      granted_by_name text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT standing_approvals_uses_ck CHECK (uses <= max_calls)
    )`);
    await q.query(`CREATE INDEX standing_approvals_run_tool_idx ON standing_approvals (run_id, tool)`);
    await q.query(`CREATE TABLE standing_approval_uses (
      standing_approval_id uuid NOT NULL REFERENCES standing_approvals(id) ON DELETE CASCADE,
      run_id uuid NOT NULL,
      call_id text NOT NULL,
      args_digest text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (run_id, call_id)
    )`);
    await q.query(`ALTER TABLE connector_call_logs ADD COLUMN approved_by text NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector_call_logs DROP COLUMN approved_by`);
    await q.query(`DROP TABLE standing_approval_uses`);
    await q.query(`DROP TABLE standing_approvals`);
  }
}
