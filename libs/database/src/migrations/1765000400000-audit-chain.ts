import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The tamper-evident audit trail: `audit_events` is append-only; each org's events form one hash chain
 * (`hash = sha256(prev_hash || canonical(event))`, `seq` 1, 2, 3 ... per org). `audit_chain_heads` holds each org's
 * last seq and hash: writers lock that row, so the chain stays linear when several instances write at once.
 * `audit_sink_cursors` remembers, per org, the last event the AUDIT_SINK_URL webhook accepted.
 */
export class AuditChain1765000400000 implements MigrationInterface {
  name = 'AuditChain1765000400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE audit_events (
      org_id uuid NOT NULL,
      seq bigint NOT NULL,
      kind text NOT NULL,
      action text NOT NULL,
      entity_type text,
      entity_id text,
      actor text,
      occurred_at timestamptz NOT NULL,
      payload jsonb NOT NULL,
      prev_hash text NOT NULL,
      hash text NOT NULL,
      recorded_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      PRIMARY KEY (org_id, seq))`);
    // Connector calls (most events) are read through connector_call_logs; the other kinds are looked up here.
    await q.query(
      `CREATE INDEX audit_events_kind_idx ON audit_events (org_id, kind, occurred_at) WHERE kind <> 'connector_call'`,
    );
    await q.query(`CREATE INDEX audit_events_recorded_idx ON audit_events (recorded_at)`);
    await q.query(`CREATE TABLE audit_chain_heads (
      org_id uuid PRIMARY KEY,
      seq bigint NOT NULL,
      hash text NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now())`);
    // A row written in flight (before its request left) waits for the audit writer's final values and chained event,
    // whether or not the tool-call store completed it first: `audit_pending` says so (rows written by the writer itself,
    // and every row older than this column, are not pending). Its small partial index is what the writer looks up.
    await q.query(`ALTER TABLE connector_call_logs ADD COLUMN audit_pending boolean NOT NULL DEFAULT false`);
    await q.query(`ALTER TABLE connector_call_logs ALTER COLUMN audit_pending SET DEFAULT true`);
    await q.query(`DROP INDEX IF EXISTS connector_call_logs_unfinished_idx`);
    await q.query(
      `CREATE INDEX connector_call_logs_pending_idx ON connector_call_logs (run_id, call_id) WHERE audit_pending`,
    );
    await q.query(`CREATE TABLE audit_sink_cursors (
      org_id uuid PRIMARY KEY,
      seq bigint NOT NULL DEFAULT '0',
      updated_at timestamptz NOT NULL DEFAULT now())`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE audit_sink_cursors`);
    await q.query(`DROP INDEX connector_call_logs_pending_idx`);
    await q.query(`ALTER TABLE connector_call_logs DROP COLUMN audit_pending`);
    await q.query(
      `CREATE INDEX connector_call_logs_unfinished_idx ON connector_call_logs (run_id, call_id) WHERE duration_ms IS NULL AND blocked_by IS NULL`,
    );
    await q.query(`DROP TABLE audit_chain_heads`);
    await q.query(`DROP TABLE audit_events`);
  }
}
