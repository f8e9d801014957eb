import type { MemberView } from '@warden/auth';
import { BadInputError, ConflictError } from '@warden/common';
import { approversOf, refusalFor, type ChannelList } from '../approver-check.js';
import type { ConfirmationRequest } from '../confirmation.types.js';

/** What a reassignment is checked against: the request as read, who hands it over, to whom, and who has voted. */
export interface ReassignmentCase {
  row: ConfirmationRequest;
  by: MemberView;
  to: MemberView;
  voterIds: string[];
  channelList: ChannelList;
}

/**
 * The state a reassignment was checked on, which the conditional UPDATE requires unchanged: a vote or an escalation
 * that lands in between makes it a 409 (try again) instead of a hand-over decided on stale facts.
 */
export interface ReassignmentGuard {
  approvers: string[];
  approvalsGiven: number;
  byUserId: string;
  toUserId: string;
}

/**
 * A reassignment hands the reassigner's own say to someone the request's approver policy (its tier's, as stored on
 * the row) already allows; it never lowers the number of distinct people who approve. The target becomes the only
 * approver, so it is refused when that would need one person to give two approvals, when the target already voted
 * (their vote cannot count twice), or when the reassigner already approved (he would choose his co-approver).
 * Throws a 400 (the target may not approve) or a 409 (the hand-over would lower the bar); returns the guard.
 */
export function checkReassignment(c: ReassignmentCase): ReassignmentGuard {
  const { row, by, to } = c;
  const refusal = refusalFor(row, { member: to }, 'approve', c.channelList);
  if (refusal) throw new BadInputError(`${to.sub} may not approve this request: ${refusal}`);
  const conflict = (message: string) => new ConflictError(message, { status: row.status });
  if (c.voterIds.includes(by.userId)) {
    throw conflict(`you have already approved confirmation ${row.id}: your say cannot be handed to someone else`);
  }
  if (c.voterIds.includes(to.userId))
    throw conflict(`${to.sub} has already voted on this request; their vote cannot count twice`);
  const missing = row.approvalsRequired - row.approvalsGiven;
  if (missing > 1) {
    throw conflict(
      `confirmation ${row.id} needs ${missing} more approvals: ` +
        `one person cannot give them (approve it or let it be decided as is)`,
    );
  }
  return { approvers: approversOf(row), approvalsGiven: row.approvalsGiven, byUserId: by.userId, toUserId: to.userId };
}
