import { argsDigest, inFlightAuditInsert, type ToolCallMetadata } from '@warden/hooks';
import type { SqlParams } from '@warden/database';
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
  const executed = p.add(JSON.stringify(args));
  // Claims a call still `pending` (one its driver just recorded) in the same statement; the call of a turn not
  // written yet (LiveRun.turn) is recorded here, marked: it is the turn's one call.
  const marked: [string, string] = [
    'marked',
    live.turn
      ? `INSERT INTO tool_calls (run_id, call_id, position, tool, args, status, executed_args, started_at)
          SELECT ${runId}::uuid, ${callId}, 0, ${p.add(call.tool)}, ${p.add(JSON.stringify(call.args))}::jsonb,
                 'running', ${executed}::jsonb, now()
           WHERE EXISTS (SELECT 1 FROM owner) ON CONFLICT (run_id, call_id) DO NOTHING RETURNING run_id`
      : `UPDATE tool_calls SET executed_args = ${executed}, status = 'running', started_at = COALESCE(started_at, now())
          WHERE run_id = ${runId}::uuid AND call_id = ${callId} AND status IN ('pending', 'running')
            AND EXISTS (SELECT 1 FROM owner) RETURNING run_id`,
  ];
  // A simulated eval call sends nothing: its audit row (simulated: true) is written by the audit_log hook.
  if (!meta.connector || simulated) return [marked];
  const c = meta.connector;
  const audited = inFlightAuditInsert(
    {
      orgId: p.add(run.orgId),
      agentId: p.add(run.agentId || null),
      userId: p.add(run.userId || null),
      surface: p.add(run.surface),
      tool: p.add(call.tool),
      connectorId: p.add(c.id || null),
      connectorName: p.add(c.name),
      action: p.add(c.action),
      method: p.add(c.method),
      url: p.add(c.url),
      argsDigest: p.add(argsDigest(args)),
      approvedBy: p.add(meta.approvedBy ?? null),
      runId,
      callId,
    },
    'marked',
  );
  return [marked, ['audited', audited]];
}
