import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One card per model turn (issue #20). The gated calls of one turn share `batch_key` (run id + the turn's first call
 * id) and keep their own rows and verdicts; `confirmation_batches` holds the one card, claimed by the first gate of
 * the turn (primary key), and `batch_position` orders the calls on it as the model made them.
 */
export class ConfirmationBatches1765000500003 implements MigrationInterface {
  name = 'ConfirmationBatches1765000500003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE confirmation_requests ADD COLUMN batch_key text NULL, ADD COLUMN batch_position integer NULL`,
    );
    await q.query(
      `CREATE INDEX confirmation_requests_batch_idx ON confirmation_requests (batch_key) WHERE batch_key IS NOT NULL`,
    );
    await q.query(`CREATE TABLE confirmation_batches (
      batch_key text PRIMARY KEY,
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      channel_id text NOT NULL,
      sent_card jsonb NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE confirmation_batches`);
    await q.query(`ALTER TABLE confirmation_requests DROP COLUMN batch_position, DROP COLUMN batch_key`);
  }
}
