import { Injectable } from '@nestjs/common';
import type { Queryable } from '@warden/common';
import { DataSource } from 'typeorm';
import {
  CONFIRMATION_NOTIFY_CHANNEL,
  rowToConfirmation,
  type ConfirmationRequest,
  type ConfirmationRow,
} from '../confirmation.types.js';
import type { ReassignmentGuard } from './reassignment-policy.js';

export type ConfirmationEventKind = 'reminded' | 'escalated' | 'reassigned';

/** One step in a request's history (table `confirmation_events`). */
export interface ConfirmationEvent {
  kind: ConfirmationEventKind;
  detail: Record<string, unknown>;
  byUserId: string | null;
  byName: string;
  at: Date;
}

const BATCH = 100;

/**
 * Claims every reminder and escalation that is due, on all requests of all orgs, in one statement: the step is
 * marked done and its history row written in that statement, so whichever instance polls first does it, once.
 * Each step is NOTIFYed (`stepped:<id>`, the row stays pending) so every instance's inbox stream shows it to the
 * request's approvers (after an escalation, the widened ones).
 * An escalation due together with a reminder supersedes it (the escalation card is the louder reminder).
 */
const CLAIM_DUE_STEPS = `
WITH esc AS (
  UPDATE confirmation_requests c
     SET escalated_at = now(),
         reminded_at = CASE WHEN c.remind_at IS NOT NULL AND c.reminded_at IS NULL THEN now() ELSE c.reminded_at END,
         approvers = COALESCE(c.approvers, jsonb_build_array(c.approver_scope))
                     || COALESCE(c.escalate_to->'approvers', '[]'::jsonb),
         escalation_channel_id = COALESCE(c.escalate_to->>'channelId', c.channel_id),
         updated_at = now()
   WHERE c.id IN (SELECT id FROM confirmation_requests WHERE status = 'pending' AND escalated_at IS NULL
                    AND escalate_at <= now() AND expires_at > now()
                  ORDER BY escalate_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
  RETURNING c.*, 'escalated'::text AS step),
rem AS (
  UPDATE confirmation_requests c SET reminded_at = now(), updated_at = now()
   WHERE c.id IN (SELECT id FROM confirmation_requests WHERE status = 'pending' AND reminded_at IS NULL
                    AND remind_at <= now() AND expires_at > now()
                    AND NOT (escalated_at IS NULL AND escalate_at IS NOT NULL AND escalate_at <= now())
                  ORDER BY remind_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
  RETURNING c.*, 'reminded'::text AS step),
steps AS (SELECT * FROM esc UNION ALL SELECT * FROM rem),
history AS (
  INSERT INTO confirmation_events (confirmation_id, kind, detail, by_name)
  SELECT id, step, CASE step WHEN 'escalated' THEN jsonb_build_object('approvers', approvers,
                                                                      'channel_id', escalation_channel_id)
                             ELSE jsonb_build_object('channel_id', channel_id) END, 'system' FROM steps)
SELECT steps.*, pg_notify('${CONFIRMATION_NOTIFY_CHANNEL}', 'stepped:' || steps.id::text) AS notified FROM steps`;

/** The earliest step still to take on a pending request (the partial indexes on `escalate_at` and `remind_at`). */
const NEXT_STEP_DUE = `
SELECT (EXTRACT(EPOCH FROM (min(due) - now())) * 1000)::float8 AS due_in_ms FROM (
  SELECT min(escalate_at) AS due FROM confirmation_requests
   WHERE status = 'pending' AND escalated_at IS NULL AND escalate_at IS NOT NULL AND expires_at > now()
  UNION ALL
  SELECT min(remind_at) FROM confirmation_requests
   WHERE status = 'pending' AND reminded_at IS NULL AND remind_at IS NOT NULL AND expires_at > now()) AS d`;

@Injectable()
export class EscalationStore {
  constructor(private readonly dataSource: DataSource) {}

  async claimDueSteps(): Promise<Array<{ step: 'reminded' | 'escalated'; row: ConfirmationRequest }>> {
    const rows =
      await this.dataSource.query<Array<ConfirmationRow & { step: 'reminded' | 'escalated' }>>(CLAIM_DUE_STEPS);
    return rows.map((r) => ({ step: r.step, row: rowToConfirmation(r) }));
  }

  /**
   * How long until the next reminder or escalation is due, in ms (≤ 0: now; null: none is), on the database's clock.
   */
  async nextStepDueInMs(): Promise<number | null> {
    const [row] = await this.dataSource.query<Array<{ due_in_ms: number | null }>>(NEXT_STEP_DUE);
    return row.due_in_ms;
  }

  async recordEscalationCard(
    id: string,
    sent: { platformMessageId?: string; extra?: Record<string, unknown> },
  ): Promise<void> {
    await this.dataSource.query(`UPDATE confirmation_requests SET escalation_card = $2::jsonb WHERE id = $1`, [
      id,
      JSON.stringify(sent),
    ]);
  }

  /**
   * Hands a pending request to one named user: the only approver from now on; written with its history row. Only
   * while the request is as it was checked (`guard`: same approvers, same count, neither person has voted since).
   * In `runner`'s transaction when given (its audit event commits with it). NOTIFYed as a step (`stepped:<id>`, at
   * commit): every instance's inbox streams show it to the new approver and take it from the ones who lost it.
   */
  async reassign(
    id: string,
    toSub: string,
    by: { userId: string; name: string },
    reason: string | null,
    guard: ReassignmentGuard,
    runner: Queryable = this.dataSource,
  ): Promise<ConfirmationRequest | null> {
    const [row] = await runner.query<[ConfirmationRow?]>(
      `WITH moved AS (
         UPDATE confirmation_requests c SET approvers = jsonb_build_array('users:' || $2::text), updated_at = now()
          FROM confirmation_requests before
          WHERE c.id = $1 AND before.id = c.id AND c.status = 'pending' AND c.expires_at > now()
            AND COALESCE(c.approvers, jsonb_build_array(c.approver_scope)) = $6::jsonb AND c.approvals_given = $7
            AND NOT EXISTS (SELECT 1 FROM confirmation_votes v WHERE v.confirmation_id = c.id AND v.user_id IN ($3, $8))
          RETURNING c.*, COALESCE(before.approvers, jsonb_build_array(before.approver_scope)) AS previous_approvers),
       history AS (
         INSERT INTO confirmation_events (confirmation_id, kind, detail, by_user_id, by_name)
         SELECT id, 'reassigned',
                jsonb_build_object('from', previous_approvers, 'to', $2::text, 'reason', $5::text), $3, $4 FROM moved)
       SELECT moved.*, pg_notify('${CONFIRMATION_NOTIFY_CHANNEL}', 'stepped:' || moved.id::text) AS notified
         FROM moved`,
      [id, toSub, by.userId, by.name, reason, JSON.stringify(guard.approvers), guard.approvalsGiven, guard.toUserId],
    );
    return row ? rowToConfirmation(row) : null;
  }

  async history(confirmationId: string): Promise<ConfirmationEvent[]> {
    const rows = await this.dataSource.query<
      Array<{
        kind: ConfirmationEventKind;
        detail: Record<string, unknown>;
        by_user_id: string | null;
        by_name: string;
        created_at: Date | string;
      }>
    >(
      `SELECT kind, detail, by_user_id, by_name, created_at FROM confirmation_events
        WHERE confirmation_id = $1 ORDER BY created_at, id`,
      [confirmationId],
    );
    return rows.map((r) => ({
      kind: r.kind,
      detail: r.detail,
      byUserId: r.by_user_id,
      byName: r.by_name,
      at: new Date(r.created_at),
    }));
  }
}
