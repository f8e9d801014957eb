import type { ChatPlatform, Decision } from '@warden/channels';
import type { ResolvedDecider } from './approver-check.js';
import type { ConfirmationRequest } from './confirmation.types.js';
import type { Actor } from './decider-resolver.js';
import type { Retiered } from './edits/edit-retier.js';
import type { StandingGrant } from './standing/standing-approvals.js';

// The shapes of a decision (ConfirmationDecisionService): what a decider sends, and what one decision under way holds.

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
