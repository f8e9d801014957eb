import { Inject, Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type { Bus } from '@warden/common';
import { DataSource } from 'typeorm';
import {
  CONFIRMATION_NOTIFY_CHANNEL,
  CONFIRMATION_VOTED,
  rowToConfirmation,
  type ConfirmationRequest,
  type ConfirmationRow,
} from './confirmation.types.js';
import { confirmationColumns } from './confirmation-row.js';

/**
 * The grant statements of a request's approving votes (docs/authorization.md), as SQL over `confirmation_requests c`:
 * what an approval carries to the executor. Votes from before digests were recorded state nothing.
 */
export const GRANTS_OF_APPROVING_VOTES = `(SELECT COALESCE(jsonb_agg(jsonb_build_object(
    'kind', CASE WHEN v.args_digest IS DISTINCT FROM c.args_digest
                   OR v.user_id = c.edited_by_user_id THEN 'edit' ELSE 'vote' END,
    'principal', v.user_id, 'digest', v.args_digest, 'policyVersion', v.policy_version,
    'tier', v.tier) ORDER BY v.created_at), '[]'::jsonb)
  FROM confirmation_votes v WHERE v.confirmation_id = c.id AND v.decision = 'approve' AND v.args_digest IS NOT NULL)`;

export interface Vote {
  confirmationId: string;
  userId: string;
  userName: string;
  decision: 'approve' | 'reject';
  platform: string | null;
  externalId: string | null;
  approvers: string[];
  tier: number | null;
  /** The grant this vote states (approvals): the exact args digest and the policy version it allowed. */
  argsDigest: string | null;
  policyVersion: string | null;
  /**
   * The vote is expected to settle the request (a rejection, or the approval that completes the quorum): the
   * settlement, a durable commit, follows before anyone is answered or anything runs, and flushes this one with it
   * (the WAL is written in order), so this commit need not wait for its own disk flush.
   */
  settles?: boolean;
}

export interface VoteView {
  user_id: string;
  name: string;
  decision: 'approve' | 'reject';
  platform: string | null;
  external_id: string | null;
  approvers: string[];
  tier: number | null;
  at: string;
}

/**
 * Each person's decision on a request (table `confirmation_votes`, unique per request + person). An approval is
 * counted in the same statement that records it, so concurrent approvals from different people are all counted
 * and a repeated approval from the same person counts nothing.
 */
@Injectable()
export class ConfirmationVotesStore {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(EventEmitter2) private readonly events: Bus,
  ) {}

  /**
   * Records the vote while the request is still pending and before its deadline. Returns the request after the
   * count (approvals only), or null when this person had already voted or the request is no longer open.
   */
  async record(v: Vote): Promise<ConfirmationRequest | null> {
    const rows = await this.dataSource.query<Array<ConfirmationRow | undefined>>(
      `WITH vote AS (
         INSERT INTO confirmation_votes
           (confirmation_id, user_id, user_name, decision, platform, external_id,
            approvers, tier, args_digest, policy_version)
         SELECT c.id, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10 FROM confirmation_requests c
          WHERE c.id = $1 AND c.status = 'pending' AND c.expires_at > now()
         ON CONFLICT (confirmation_id, user_id) DO NOTHING
         RETURNING confirmation_id, decision),
       counted AS (
         UPDATE confirmation_requests c
            SET approvals_given = c.approvals_given + CASE WHEN vote.decision = 'approve' THEN 1 ELSE 0 END,
                updated_at = now()
           FROM vote WHERE c.id = vote.confirmation_id
         RETURNING ${confirmationColumns('c')})
       SELECT ${confirmationColumns('counted')},
              pg_notify('${CONFIRMATION_NOTIFY_CHANNEL}', 'voted:' || counted.id::text) AS notified
         ${v.settles ? `, set_config('synchronous_commit', 'off', true) AS sync_off` : ''} FROM counted`,
      [
        v.confirmationId,
        v.userId,
        v.userName,
        v.decision,
        v.platform,
        v.externalId,
        JSON.stringify(v.approvers),
        v.tier,
        v.argsDigest,
        v.policyVersion,
      ],
    );
    if (!rows[0]) return null;
    const row = rowToConfirmation(rows[0]);
    // Open inboxes show the new count ("1 of 2 approvals") at once.
    this.events.emit(CONFIRMATION_VOTED, row);
    return row;
  }

  /** This person's recorded vote on the request, if any. */
  async voteOf(confirmationId: string, userId: string): Promise<'approve' | 'reject' | null> {
    const rows: Array<{ decision: 'approve' | 'reject' }> = await this.dataSource.query(
      `SELECT decision FROM confirmation_votes WHERE confirmation_id = $1 AND user_id = $2`,
      [confirmationId, userId],
    );
    return rows[0]?.decision ?? null;
  }

  async list(confirmationId: string): Promise<VoteView[]> {
    const rows = await this.dataSource.query<
      Array<Omit<VoteView, 'name' | 'at'> & { user_name: string; created_at: Date | string }>
    >(`SELECT * FROM confirmation_votes WHERE confirmation_id = $1 ORDER BY created_at, id`, [confirmationId]);
    return rows.map((r) => ({
      user_id: r.user_id,
      name: r.user_name,
      decision: r.decision,
      platform: r.platform,
      external_id: r.external_id,
      approvers: r.approvers,
      tier: r.tier,
      at: new Date(r.created_at).toISOString(),
    }));
  }
}
