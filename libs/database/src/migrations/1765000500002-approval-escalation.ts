import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reminders, escalation and reassignment of approval requests (issue #20). The steps due are columns of the request
 * (`remind_at`, `escalate_at`), claimed by one conditional UPDATE per step kind per poll on whichever instance polls
 * first (`reminded_at` / `escalated_at` set in that statement), so each happens once. Every step — reminded,
 * escalated, reassigned — is a row of `confirmation_events`, the request's history.
 */
export class ApprovalEscalation1765000500002 implements MigrationInterface {
  name = 'ApprovalEscalation1765000500002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE confirmation_requests
      ADD COLUMN remind_at timestamptz NULL,
      ADD COLUMN reminded_at timestamptz NULL,
      ADD COLUMN escalate_at timestamptz NULL,
      ADD COLUMN escalated_at timestamptz NULL,
      ADD COLUMN escalate_to jsonb NULL,
      ADD COLUMN escalation_channel_id text NULL,
      ADD COLUMN escalation_card jsonb NULL`);
    await q.query(
      `CREATE INDEX confirmation_requests_remind_idx ON confirmation_requests (remind_at) WHERE status = 'pending' AND reminded_at IS NULL AND remind_at IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX confirmation_requests_escalate_idx ON confirmation_requests (escalate_at) WHERE status = 'pending' AND escalated_at IS NULL AND escalate_at IS NOT NULL`,
    );
    await q.query(`CREATE TABLE confirmation_events (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      confirmation_id uuid NOT NULL REFERENCES confirmation_requests(id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('reminded', 'escalated', 'reassigned')),
      detail jsonb NOT NULL DEFAULT '{}'::jsonb,
      by_user_id uuid NULL REFERENCES users(id) ON DELETE SET NULL,
      by_name text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(
      `CREATE INDEX confirmation_events_confirmation_idx ON confirmation_events (confirmation_id, created_at)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE confirmation_events`);
    await q.query(`ALTER TABLE confirmation_requests DROP COLUMN escalation_card, DROP COLUMN escalation_channel_id, DROP COLUMN escalate_to,
      DROP COLUMN escalated_at, DROP COLUMN escalate_at, DROP COLUMN reminded_at, DROP COLUMN remind_at`);
  }
}
