import type { EntityManager } from 'typeorm';
import { CONNECTOR_CALL_DIGEST_SQL, type WrittenLogRow } from './connector-call-event.js';

/** One connector call to record; see ConnectorCallLog for the meaning of each field. */
export interface AuditRow {
  orgId: string;
  agentId: string | null;
  userId: string | null;
  runId: string | null;
  callId: string | null;
  surface: string;
  tool: string;
  connectorId: string | null;
  connectorName: string;
  action: string;
  method: string;
  url: string;
  argsDigest: string;
  args: Record<string, unknown> | null;
  status: number | null;
  durationMs: number | null;
  success: boolean;
  error: string | null;
  blockedBy: string | null;
  /** An eval run's call that was simulated, not sent. */
  simulated: boolean;
  /** Who approved the call, under which approval ("Alice (standing approval #…)"); null when none was needed. */
  approvedBy?: string | null;
  createdAt: Date;
}

// unnest() turns 22 arrays into rows: one statement and 22 parameters per batch, whatever its size. A row whose call
// was recorded in flight (`audit_pending`: written before its request left, maybe completed since by the tool-call
// store) gets this row's values; others are inserted — except a call that already has its row (interrupted by a
// restart while this batch waited in a paused process): a call has one audit row. Returns each row's id, for the
// audit event that covers it.
const INSERT_SQL = `WITH d AS (
    SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
      $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::jsonb[], $15::int[], $16::int[], $17::bool[],
      $18::text[], $19::text[], $20::timestamptz[], $21::bool[], $22::text[])
      AS d(org_id, agent_id, user_id, run_id, call_id, surface, tool, connector_id, connector_name, action, method, url,
           args_digest, args, status, duration_ms, success, error, blocked_by, created_at, simulated, approved_by)),
  completed AS (
    UPDATE connector_call_logs c SET status = d.status, duration_ms = d.duration_ms, success = d.success,
           error = d.error, args = d.args, args_digest = d.args_digest, outcome = 'completed', audit_pending = false,
           approved_by = COALESCE(d.approved_by, c.approved_by)
      FROM d WHERE c.audit_pending AND d.blocked_by IS NULL
       AND c.run_id = d.run_id AND c.call_id = d.call_id AND c.org_id = d.org_id
    RETURNING c.*),
  inserted AS (
    INSERT INTO connector_call_logs (org_id, agent_id, user_id, run_id, call_id, surface, tool, connector_id,
      connector_name, action, method, url, args_digest, args, status, duration_ms, success, error, blocked_by,
      created_at, simulated, approved_by, audit_pending)
    SELECT *, false FROM d
     WHERE NOT EXISTS (SELECT 1 FROM completed WHERE completed.run_id = d.run_id AND completed.call_id = d.call_id)
      AND (d.blocked_by IS NOT NULL OR NOT EXISTS (
        SELECT 1 FROM connector_call_logs x
         WHERE x.run_id = d.run_id AND x.call_id = d.call_id AND x.blocked_by IS NULL))
    RETURNING *)
  SELECT id::text AS id, run_id, call_id, false AS blocked, ${CONNECTOR_CALL_DIGEST_SQL} AS row_sha256 FROM completed
  UNION ALL SELECT id::text, run_id, call_id, blocked_by IS NOT NULL, ${CONNECTOR_CALL_DIGEST_SQL} FROM inserted`;

/** Writes a batch of audit rows (completing the in-flight rows of their calls) in `m`; returns what was written. */
export function insertConnectorCallLogs(m: EntityManager, rows: AuditRow[]): Promise<WrittenLogRow[]> {
  const col = <K extends keyof AuditRow>(k: K) => rows.map((r) => r[k]);
  return m.query<WrittenLogRow[]>(INSERT_SQL, [
    col('orgId'),
    col('agentId'),
    col('userId'),
    col('runId'),
    col('callId'),
    col('surface'),
    col('tool'),
    col('connectorId'),
    col('connectorName'),
    col('action'),
    col('method'),
    col('url'),
    col('argsDigest'),
    rows.map((r) => (r.args === null ? null : JSON.stringify(r.args))),
    col('status'),
    col('durationMs'),
    col('success'),
    col('error'),
    col('blockedBy'),
    rows.map((r) => r.createdAt.toISOString()),
    col('simulated'),
    rows.map((r) => r.approvedBy ?? null),
  ]);
}
