import { appendAuditEvents } from '@warden/common';
import { argsDigest, CONNECTOR_CALL_DIGEST_SQL, type ToolCallMetadata } from '@warden/hooks';
import type { DataSource, EntityManager } from 'typeorm';
import type { PendingToolCall } from '../runs/run.entity.js';
import type { LiveRun } from './live-run.js';
import { holdsRun } from './run-fence.js';

/**
 * The last write before a tool call's request leaves, in one statement: the call is marked executing (`executed_args`:
 * a resumed run never repeats it) while this driver holds the run, and a connector call gets its audit row now, with
 * outcome `in_flight` (the audit_log hook completes it from the result). So a crash at any point leaves one audit row
 * per request that may have reached the target. Returns false when the fence refused the write (nothing is sent).
 */
export async function markExecuting(
  db: DataSource | EntityManager,
  live: LiveRun,
  call: PendingToolCall,
  args: Record<string, unknown>,
  meta: ToolCallMetadata,
  simulated = false,
): Promise<boolean> {
  const { run } = live;
  // Claims a call still `pending` (one its driver just recorded) in the same statement.
  const mark = `UPDATE tool_calls SET executed_args = $3, status = 'running', started_at = COALESCE(started_at, now())
    WHERE run_id = $1 AND call_id = $2 AND status IN ('pending', 'running') AND ${holdsRun(4)}`;
  const base = [run.id, call.call_id, JSON.stringify(args), live.epoch];
  // A simulated eval call sends nothing: its audit row (simulated: true) is written by the audit_log hook.
  if (!meta.connector || simulated) {
    const [, affected] = await db.query<[unknown, number]>(mark, base);
    return affected > 0;
  }
  const c = meta.connector;
  const rows: unknown[] = await db.query(
    `WITH marked AS (${mark} RETURNING run_id)
     INSERT INTO connector_call_logs (org_id, agent_id, user_id, run_id, call_id, surface, tool, connector_id, connector_name,
       action, method, url, args_digest, success, outcome, created_at, approved_by)
     SELECT $5, $6, $7, $1::text, $2, $8, $9, $10, $11, $12, $13, $14, $15, false, 'in_flight', now(), $16 FROM marked RETURNING id`,
    [
      ...base,
      run.orgId,
      run.agentId || null,
      run.userId || null,
      run.surface,
      call.tool,
      c.id || null,
      c.name,
      c.action,
      c.method,
      c.url,
      argsDigest(args),
      meta.approvedBy ?? null,
    ],
  );
  return rows.length > 0;
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
        RETURNING id::text AS id, org_id::text AS org_id, agent_id, user_id, tool, created_at, ${CONNECTOR_CALL_DIGEST_SQL} AS row_sha256`,
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
