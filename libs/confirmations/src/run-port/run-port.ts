import { appendAuditEvents, type AuditEventInput } from '@warden/common';
import type { EntityManager } from 'typeorm';

/*
 * The run engine's port onto `confirmation_requests` (this module owns the table): the pieces of SQL the engine places
 * in its own statements (a park, a claim, a recovery sweep) and the expiry of a cancelled run's requests. This file
 * imports nothing of @warden/agents, so the engine can import it (`@warden/confirmations/run-port`) without a cycle.
 */

/** Emitted by the engine after it expired requests of a lost model turn (their cards then show them expired). */
export const LOST_TURN_APPROVALS_EXPIRED = 'confirmations.lost-turn-expired';
declare module '@warden/common' {
  interface BusEvents {
    [LOST_TURN_APPROVALS_EXPIRED]: { confirmationIds: string[] };
  }
}

/** The confirmations' NOTIFY channel (what ConfirmationWaiter listens to). */
const CONFIRMATION_NOTIFY_CHANNEL = 'confirmation_decided';

/** A row source `(id, run_id)` of the requests among `ids` (an SQL uuid[] expression) that are decided or overdue. */
export function decidedOrOverdueAmong(ids: string): string {
  return `SELECT id, run_id FROM confirmation_requests
           WHERE id = ANY(${ids}) AND (status <> 'pending' OR expires_at <= now())`;
}

/**
 * A row source of the requests among `ids` that are decided (not pending any more), read under a share lock on each:
 * a decision being written is waited for, and one committed since the statement's snapshot is seen (a locked row is
 * its latest version). A park reads it, so a decision either keeps the run held or commits after the park and finds
 * the run parked (its claim cannot miss it): no timed sweep is needed behind a decision.
 */
export function decidedAmong(ids: string): string {
  // OFFSET 0 keeps the status filter above the lock: pushed below it, a pending row would be skipped, not locked.
  return `SELECT 1 FROM (SELECT status FROM confirmation_requests WHERE id = ANY(${ids}) OFFSET 0 FOR SHARE) AS locked
           WHERE locked.status <> 'pending'`;
}

/** A row source with one column `due`: now when one of `ids` is decided, else the earliest deadline among them. */
export function dueAmong(ids: string): string {
  return `SELECT min(CASE WHEN status <> 'pending' THEN now() ELSE expires_at END) AS due
            FROM confirmation_requests WHERE id = ANY(${ids})`;
}

/** What a cancel's expiry returns of each request: the fields of its `confirmation.expired` audit event. */
interface ExpiredRequest {
  id: string;
  org_id: string;
  run_id: string;
  call_id: string;
  agent_id: string | null;
  tool: string;
  args_digest: string | null;
  requested_by: string | null;
  approvals_given: number;
  approvals_required: number;
  tier: number | null;
}

const CANCELLED = 'the run was cancelled';
/** The reason of an approval whose call was lost with a model turn that its run then redid (see below). */
export const LOST_TURN = 'the model turn that asked for it was lost when its server stopped; the run asked again';

/**
 * A cancelled run's pending approvals expire with it (same transaction), each with its chained `confirmation.expired`
 * event (the payload of confirmation-audit.ts); the NOTIFY wakes
 * their waiters on every instance, and a decision arriving later finds the row expired (409).
 */
export async function expirePendingConfirmations(m: EntityManager, runId: string): Promise<void> {
  await expireWhere(m, CANCELLED, 'run_id = $1', [runId]);
}

/**
 * A run's model turn with one call is written with the call's next write (the gate's `confirmation_pending`), so a
 * process stopped between asking for an approval and that write leaves a pending request for a call the run never
 * recorded; whoever resumes the run redoes the turn and asks again. Such requests (of `runId`, for none of
 * `recordedCallIds`) expire, audited, instead of waiting forever on a card nobody's approval can act on. `held`: the
 * engine's fence, SQL on `$1` (the run) and its `params` numbered from `$3`.
 */
export async function expireUnrecordedConfirmations(
  m: EntityManager,
  runId: string,
  recordedCallIds: string[],
  held: { sql: string; params: unknown[] },
): Promise<string[]> {
  const where = `run_id = $1 AND NOT (call_id = ANY($2::text[])) AND ${held.sql}`;
  return expireWhere(m, LOST_TURN, where, [runId, recordedCallIds, ...held.params]);
}

/** Expires the pending requests matching `where`, each with its chained `confirmation.expired` event; their ids. */
async function expireWhere(m: EntityManager, reason: string, where: string, params: unknown[]): Promise<string[]> {
  const expired = await m.query<ExpiredRequest[]>(
    `WITH expired AS (
       UPDATE confirmation_requests SET status = 'expired', responded_at = now(), responded_by_name = 'system',
              reason = '${reason}', updated_at = now()
        WHERE status = 'pending' AND ${where}
        RETURNING id, org_id, run_id, call_id, agent_id, tool, args_digest, requested_by,
                  approvals_given, approvals_required, tier)
     SELECT expired.*, pg_notify('${CONFIRMATION_NOTIFY_CHANNEL}', id::text) FROM expired`,
    params,
  );
  await appendAuditEvents(
    m,
    expired.map((r) => expiredEvent(r, reason)),
  );
  return expired.map((r) => r.id);
}

function expiredEvent(r: ExpiredRequest, reason: string): AuditEventInput {
  return {
    orgId: r.org_id,
    kind: 'confirmation',
    action: 'confirmation.expired',
    entityType: 'confirmation',
    entityId: r.id,
    actor: null,
    occurredAt: new Date(),
    payload: {
      confirmation_id: r.id,
      run_id: r.run_id,
      call_id: r.call_id,
      agent_id: r.agent_id,
      tool: r.tool,
      args_digest: r.args_digest,
      requested_by: r.requested_by,
      decision: 'expired',
      decided_by_user_id: null,
      decided_by_name: 'system',
      platform: null,
      external_id: null,
      reason,
      approvals_given: r.approvals_given,
      approvals_required: r.approvals_required,
      tier: r.tier,
    },
  };
}
