import { appendAuditEvents } from '@warden/common';
import type { DataSource } from 'typeorm';
import { CONNECTOR_CALL_DIGEST_SQL } from './connector-call-event.js';

/**
 * The run engine's writes of `connector_call_logs` (this module owns the table): SQL pieces the engine places in its
 * own fenced statement, so a tool call's audit row is written in the same statement as the call's own row.
 */

/** What an in-flight audit row records of the call: placeholders already added to the statement's parameters. */
export interface InFlightAuditValues {
  orgId: string;
  agentId: string;
  userId: string;
  surface: string;
  tool: string;
  connectorId: string;
  connectorName: string;
  action: string;
  method: string;
  url: string;
  argsDigest: string;
  approvedBy: string;
  runId: string;
  callId: string;
}

/**
 * The CTE body that writes a connector call's audit row with outcome `in_flight` once `marked` (the engine's CTE
 * claiming the call) returned its row: a crash after it leaves a row saying the request may have left.
 */
export function inFlightAuditInsert(v: InFlightAuditValues, marked: string): string {
  const values = [
    v.orgId,
    v.agentId,
    v.userId,
    v.surface,
    v.tool,
    v.connectorId,
    v.connectorName,
    v.action,
    v.method,
    v.url,
    v.argsDigest,
    v.approvedBy,
  ].join(', ');
  return `INSERT INTO connector_call_logs (org_id, agent_id, user_id, surface, tool, connector_id, connector_name,
         action, method, url, args_digest, approved_by, run_id, call_id, success, outcome, created_at)
       SELECT ${values},
              ${v.runId}::text, ${v.callId}, false, 'in_flight', now() FROM ${marked} RETURNING id`;
}

/** What completes an in-flight audit row: placeholders already added to the statement's parameters. */
export interface AuditCompletion {
  runId: string;
  callId: string;
  /** The call's status placeholder (`done` = success). */
  status: string;
  error: string;
  httpStatus: string;
  durationMs: string;
}

/** The CTE body that completes the call's in-flight audit row once `done` (the engine's CTE) returned its row. */
export function inFlightAuditCompletion(c: AuditCompletion, done: string): string {
  return `UPDATE connector_call_logs SET outcome = 'completed', success = (${c.status}::text = 'done'),
                  error = ${c.error}::text, status = COALESCE(${c.httpStatus}::int, status),
                  duration_ms = COALESCE(${c.durationMs}::int, duration_ms)
            WHERE run_id = ${c.runId}::text AND call_id = ${c.callId} AND outcome = 'in_flight'
              AND EXISTS (SELECT 1 FROM ${done}) RETURNING id`;
}

/**
 * After a crash: the audit rows of calls that were in flight say so (they were not completed, and are not retried),
 * and the org's hash-chained audit trail records the interruption with the row's digest, in the same transaction.
 */
export async function markAuditInterrupted(db: DataSource, runId: string, callId: string): Promise<void> {
  await db.transaction(async (m) => {
    const [rows]: [
      Array<{
        id: string;
        org_id: string;
        agent_id: string | null;
        user_id: string | null;
        tool: string;
        created_at: Date;
        row_sha256: string;
      }>,
    ] = await m.query(
      `UPDATE connector_call_logs SET outcome = 'interrupted', error = 'interrupted', audit_pending = false
        WHERE run_id = $1 AND call_id = $2 AND outcome = 'in_flight'
        RETURNING id::text AS id, org_id::text AS org_id, agent_id, user_id, tool, created_at,
                  ${CONNECTOR_CALL_DIGEST_SQL} AS row_sha256`,
      [runId, callId],
    );
    await appendAuditEvents(
      m,
      rows.map((r) => ({
        orgId: r.org_id,
        kind: 'connector_call' as const,
        action: 'connector_call.interrupted',
        entityType: 'run',
        entityId: runId,
        actor: r.user_id,
        occurredAt: new Date(r.created_at),
        payload: {
          log_id: r.id,
          row_sha256: r.row_sha256,
          run_id: runId,
          call_id: callId,
          agent_id: r.agent_id,
          tool: r.tool,
          status: null,
          success: false,
          blocked_by: null,
          simulated: false,
        },
      })),
    );
  });
}
