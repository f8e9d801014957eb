import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A connector call's audit row is found by (run_id, call_id) whatever its state: the audit batch completes the row
 * written before the request left even when the call's stored result already completed it (its duration set), and
 * the in-flight and interrupted updates look it up the same way. The partial index on rows without a duration only
 * served the first of these, and let the batch insert a second row for an already completed call.
 */
export class AuditCallIndex1765000100000 implements MigrationInterface {
  name = 'AuditCallIndex1765000100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX connector_call_logs_call_idx ON connector_call_logs (run_id, call_id)`);
    await q.query(`DROP INDEX connector_call_logs_unfinished_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX connector_call_logs_unfinished_idx ON connector_call_logs (run_id, call_id) WHERE duration_ms IS NULL AND blocked_by IS NULL`,
    );
    await q.query(`DROP INDEX connector_call_logs_call_idx`);
  }
}
