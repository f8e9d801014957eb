import { appendAuditEvents } from '@warden/common';
import { argsDigest, CONNECTOR_CALL_DIGEST_SQL, type ToolCallMetadata } from '@warden/hooks';
import type { SqlParams } from '@warden/database';
import type { DataSource } from 'typeorm';
import type { PendingToolCall } from '../runs/run.entity.js';
import type { LiveRun } from './live-run.js';

/**
 * The last write before a tool call's request leaves, as writes of `RunStore.writeRun` (one fenced statement with the
 * run's deferred events): the call is marked executing (`executed_args`: a resumed run never repeats it) while this
 * driver holds the run, and a connector call gets its audit row now, with outcome `in_flight` (the audit_log hook
 * completes it from the result). So a crash at any point leaves one audit row per request that may have reached the
 * target. `marked` counts 0 when the call was settled already (nothing is sent).
 */
export function executionMarkWrites(
  p: SqlParams,
  live: LiveRun,
  call: PendingToolCall,
  args: Record<string, unknown>,
  meta: ToolCallMetadata,
  simulated = false,
): Array<[string, string]> {
  const { run } = live;
  const [runId, callId] = [p.add(run.id), p.add(call.call_id)];
  // Claims a call still `pending` (one its driver just recorded) in the same statement.
  const marked: [string, string] = [
    'marked',
    `UPDATE tool_calls SET executed_args = ${p.add(JSON.stringify(args))}, status = 'running', started_at = COALESCE(started_at, now())
      WHERE run_id = ${runId}::uuid AND call_id = ${callId} AND status IN ('pending', 'running') AND EXISTS (SELECT 1 FROM owner) RETURNING run_id`,
  ];
  // A simulated eval call sends nothing: its audit row (simulated: true) is written by the audit_log hook.
  if (!meta.connector || simulated) return [marked];
  const c = meta.connector;
  const values = [
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
  ].map((v) => p.add(v));
  return [
    marked,
    [
      'audited',
      `INSERT INTO connector_call_logs (org_id, agent_id, user_id, surface, tool, connector_id, connector_name,
         action, method, url, args_digest, approved_by, run_id, call_id, success, outcome, created_at)
       SELECT ${values.join(', ')}, ${runId}::text, ${callId}, false, 'in_flight', now() FROM marked RETURNING id`,
    ],
  ];
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
