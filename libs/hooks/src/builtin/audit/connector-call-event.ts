import type { AuditEventInput, AuditSourceCheck } from '@warden/common';
import type { DataSource } from 'typeorm';
import type { AuditRow } from './audit-writer.js';

/**
 * SHA-256 (hex) of a connector_call_logs row as stored: every column but the id and the bookkeeping flag, as jsonb
 * text (times as epoch seconds, so the session's time zone cannot change it). Computed by PostgreSQL both when the row
 * is audited and when it is verified, so anyone can recompute it with SQL alone.
 */
export const CONNECTOR_CALL_DIGEST_SQL = `encode(sha256(convert_to(jsonb_build_object(
  'org_id', org_id, 'agent_id', agent_id, 'user_id', user_id, 'run_id', run_id, 'call_id', call_id, 'surface', surface,
  'tool', tool, 'connector_id', connector_id, 'connector_name', connector_name, 'action', action, 'method', method,
  'url', url, 'args_digest', args_digest, 'args', args, 'status', status, 'duration_ms', duration_ms,
  'success', success, 'error', error,
  'blocked_by', blocked_by, 'simulated', simulated, 'outcome', outcome, 'approved_by', approved_by,
  'created_at', extract(epoch FROM created_at)::text
)::text, 'UTF8')), 'hex')`;

/** A connector_call_logs row as the audit writer's statement returns it. */
export interface WrittenLogRow {
  id: string;
  run_id: string | null;
  call_id: string | null;
  blocked: boolean;
  row_sha256: string;
}

/**
 * The hash-chained event of one connector call (executed, failed, blocked or simulated). It names the log row and
 * binds its content by digest (`row_sha256`), with the fields a SIEM filters on.
 */
export function connectorCallEvent(r: AuditRow, log: WrittenLogRow | null): AuditEventInput {
  return {
    orgId: r.orgId,
    kind: 'connector_call',
    action: r.blockedBy ? 'connector_call.blocked' : 'connector_call.completed',
    entityType: 'run',
    entityId: r.runId,
    actor: r.userId,
    occurredAt: r.createdAt,
    payload: {
      log_id: log?.id ?? null,
      row_sha256: log?.row_sha256 ?? null,
      run_id: r.runId,
      call_id: r.callId,
      agent_id: r.agentId,
      tool: r.tool,
      status: r.status,
      success: r.success,
      blocked_by: r.blockedBy,
      simulated: r.simulated,
    },
  };
}

/** Each recorded row's log row, matched by run, call and blocked-ness (rows without them: in the order written). */
export function logRowsInOrder(rows: AuditRow[], written: WrittenLogRow[]): Array<WrittenLogRow | null> {
  const key = (runId: string | null, callId: string | null, blocked: boolean) =>
    `${runId}\u0000${callId}\u0000${blocked}`;
  const byKey = new Map<string, WrittenLogRow[]>();
  for (const w of written) {
    const k = key(w.run_id, w.call_id, w.blocked);
    byKey.set(k, [...(byKey.get(k) ?? []), w]);
  }
  return rows.map((r) => byKey.get(key(r.runId, r.callId, r.blockedBy !== null))?.shift() ?? null);
}

/**
 * The verifier's check that each connector call's log row still is what its chained event bound: an UPDATE or DELETE
 * of connector_call_logs (the table people read and export) is found, not only an edit of the chain itself.
 */
export function connectorCallLogCheck(dataSource: DataSource): AuditSourceCheck {
  return async (events) => {
    const ids = events.map((e) => e.payload.log_id).filter((id): id is string => typeof id === 'string');
    const broken = new Map<string, string>();
    if (ids.length === 0) return broken;
    const rows: Array<{ id: string; row_sha256: string }> = await dataSource.query(
      `SELECT id::text AS id, ${CONNECTOR_CALL_DIGEST_SQL} AS row_sha256
         FROM connector_call_logs WHERE id = ANY($1::bigint[])`,
      [ids],
    );
    const digests = new Map(rows.map((r) => [r.id, r.row_sha256]));
    for (const e of events) {
      const logId = e.payload.log_id;
      if (typeof logId !== 'string') continue;
      const digest = digests.get(logId);
      if (digest === undefined) broken.set(e.id, `connector_call_logs row ${logId} was deleted`);
      else if (digest !== e.payload.row_sha256)
        broken.set(e.id, `connector_call_logs row ${logId} was changed after it was audited`);
    }
    return broken;
  };
}
