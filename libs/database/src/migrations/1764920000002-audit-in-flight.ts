import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Audit rows written before a connector request leaves: `outcome` is `in_flight` until the call's result completes the
 * row (`completed`), or `interrupted` when its server died with the call in flight. Rows written before this column
 * existed are completed ones.
 */
export class AuditInFlight1764920000002 implements MigrationInterface {
  name = 'AuditInFlight1764920000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector_call_logs ADD COLUMN outcome text NOT NULL DEFAULT 'completed'
      CHECK (outcome IN ('in_flight', 'completed', 'interrupted'))`);
    // Rows recorded before their request left (no duration yet) are looked up by call to be completed: a small index.
    await q.query(
      `CREATE INDEX connector_call_logs_unfinished_idx ON connector_call_logs (run_id, call_id) WHERE duration_ms IS NULL AND blocked_by IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX connector_call_logs_unfinished_idx`);
    await q.query(`ALTER TABLE connector_call_logs DROP COLUMN outcome`);
  }
}
