import type { ChatPlatform, Decision } from '@warden/channels';
import { approversOf, type ResolvedDecider } from './approver-check.js';
import type { Settlement } from './confirmation-store.types.js';
import { ConfirmationStatus, type ConfirmationRequest } from './confirmation.types.js';
import type { Vote } from './confirmation-votes.store.js';
import type { Actor } from './decider-resolver.js';
import type { Retiered } from './edits/edit-retier.js';
import type { StandingGrant } from './standing/standing-approvals.js';

// The shapes of a decision (ConfirmationDecisionService): what a decider sends, what one decision under way holds,
// and the vote and settlement it writes.

/** A person's decision on a confirmation, as the API, a card click or the console sends it. */
export interface DecideInput {
  orgId: string;
  confirmationId: string;
  decision: Decision;
  reason?: string;
  /** Approve with changes: the approver's edited args (validated against the action's parameter schema). */
  args?: Record<string, unknown>;
  /** A question (ask_human, HUMAN node): the person's answer, validated against its form. */
  answer?: unknown;
  /** Approve for this run: later calls of the same tool within this bound pass without asking. */
  standing?: StandingGrant;
  actor: Actor;
}

/** One decision under way: the request as read, who decides, and what their decision carries. */
export interface Deciding {
  row: ConfirmationRequest;
  input: DecideInput;
  decider: ResolvedDecider;
  name: string;
  edit: Retiered['edit'] | undefined;
  decidedBy: {
    userId: string;
    name: string;
    platform: ChatPlatform | null;
    externalId: string | null;
    reason: string | null;
  };
}

/** What a vote is bound to: the request's digest, tier and approvers, or its edit's. */
export type VoteBound = Pick<ConfirmationRequest, 'argsDigest' | 'tier'> & { approvers: string[] | null };

/** This person's vote as a grant statement on `bound` (docs/authorization.md). */
export function voteOf(d: Deciding, bound: VoteBound, settles: boolean): Vote {
  return {
    confirmationId: d.row.id,
    userId: d.decider.member.userId,
    userName: d.name,
    decision: d.input.decision,
    platform: d.decidedBy.platform,
    externalId: d.decidedBy.externalId,
    approvers: bound.approvers ?? approversOf(d.row),
    tier: bound.tier,
    argsDigest: bound.argsDigest,
    policyVersion: d.row.policyVersion,
    settles,
  };
}

/** The request's final state when `decision` settles it, by this decider (an edit is added by the caller). */
export function settlementOf(d: Deciding, decision: 'approve' | 'reject'): Omit<Settlement, 'edit'> {
  const via = d.decider.via;
  return {
    status: decision === 'approve' ? ConfirmationStatus.Approved : ConfirmationStatus.Rejected,
    respondedByUserId: d.decider.member.userId,
    respondedByOpenId: via?.externalId ?? null,
    respondedByPlatform: via?.platform ?? null,
    respondedByName: d.name,
    reason: d.decidedBy.reason,
  };
}

/**
 * The vote, alone and without an edit, settles the request as read: a rejection, or the one approval it needs. Then
 * vote and settlement are one statement (ConfirmationStore.voteAndSettle, which checks it again on the locked row).
 */
export function decidesAlone({ row, edit, input }: Deciding): boolean {
  if (edit) return false;
  return input.decision === 'reject' || (row.approvalsGiven === 0 && row.approvalsRequired <= 1);
}
