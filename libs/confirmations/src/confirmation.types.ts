import type { ApproverScope, GrantStatement, PolicyInForce } from '@warden/hooks';

export enum ConfirmationStatus {
  Pending = 'pending',
  Approved = 'approved',
  Rejected = 'rejected',
  Expired = 'expired',
}

export const CONFIRMATION_STATUSES: readonly ConfirmationStatus[] = Object.values(ConfirmationStatus);

/** One human approval of one tool call (table `confirmation_requests`). */
export interface ConfirmationRequest {
  id: string;
  orgId: string;
  agentId: string | null;
  agentName: string | null;
  runId: string;
  callId: string;
  tool: string;
  args: Record<string, unknown>;
  /** SHA-256 of tool + canonical JSON of `args`: the exact action an approval covers (null on pre-digest rows). */
  argsDigest: string | null;
  /** False when the stored args no longer hash to `argsDigest`: `args` then holds WITHHELD_ARGS (args-integrity.ts). */
  argsIntact: boolean;
  status: ConfirmationStatus;
  requestedBy: string | null;
  approverScope: ApproverScope;
  agentOwnerId: string | null;
  forbidSelfApproval: boolean;
  /** The approver policy that applied when the request was made; null on rows older than policies (= the scope). */
  approvers: string[] | null;
  /** Index of the `confirmation.tiers` entry that applied, or null. */
  tier: number | null;
  /** The approver policy the request was asked under and its version (null on older rows: edits are refused). */
  policy: PolicyInForce | null;
  policyVersion: string | null;
  /** Once approved: the grants that approved it (docs/authorization.md); none authorizes nothing. */
  grants: GrantStatement[] | null;
  /** Distinct approvals needed, and given so far. */
  approvalsRequired: number;
  approvalsGiven: number;
  /** Arg names shown first and in full on the card (they decide). */
  decisiveFields: string[] | null;
  channelId: string | null;
  channelType: string | null;
  platformMessageId: string | null;
  sentCard: { platformMessageId?: string; extra?: Record<string, unknown> } | null;
  expiresAt: Date;
  respondedAt: Date | null;
  respondedByUserId: string | null;
  respondedByOpenId: string | null;
  respondedByPlatform: string | null;
  /** Who decided, as a person reads it: a user's name or sub, a chat id, or "timeout"/"system". */
  respondedByName: string | null;
  reason: string | null;
  /** The action's parameter schema when the request was made: what an approver's edit must satisfy. */
  argsSchema: Record<string, unknown> | null;
  /** Approved with changes: the args as proposed (`args` then holds the approver's edit, `argsDigest` binds them). */
  originalArgs: Record<string, unknown> | null;
  editedByUserId: string | null;
  editedByName: string | null;
  /** A hook asked for this approval (`permissionDecision: "ask"`): its reason, shown on the card. */
  askReason: string | null;
  /** Why a person is asked: the rule that fired (e.g. `args.amount > 50000`), when it was not a hook's ask. */
  trigger: string | null;
  /** The member's message the run started from (context for the approver). */
  memberMessage: string | null;
  /** Reminder / escalation steps: when due, when done (issue #20), whom to escalate to, the escalation card. */
  remindAt: Date | null;
  remindedAt: Date | null;
  escalateAt: Date | null;
  escalatedAt: Date | null;
  escalateTo: { approvers?: string[]; channelId?: string } | null;
  escalationChannelId: string | null;
  escalationCard: { platformMessageId?: string; extra?: Record<string, unknown> } | null;
  /** The gated calls of one model turn share one card: its key, and this call's place in the turn. */
  batchKey: string | null;
  batchPosition: number | null;
  createdAt: Date;
  updatedAt: Date;
}

/** In-process domain event, emitted after a row left `pending` (the statement has committed). */
export const CONFIRMATION_SETTLED = 'confirmation.settled';
/** In-process domain event, emitted after a new pending row was inserted (the statement has committed). */
export const CONFIRMATION_REQUESTED = 'confirmation.requested';
/**
 * In-process event: a row left `pending`, as told by the NOTIFY channel (payload: its id) — a decision of any
 * instance, this one included. Parked runs are claimed on it (@warden/agents ParkedRunResumer).
 */
export const CONFIRMATION_NOTIFIED = 'confirmation.notified';
/** In-process domain event, emitted after a vote was counted on a row that may still be pending (tiers). */
export const CONFIRMATION_VOTED = 'confirmation.voted';
/** In-process: a reminder or escalation was taken on a pending request (payload: the row). */
export const CONFIRMATION_STEPPED = 'confirmation.stepped';

declare module '@warden/common' {
  interface BusEvents {
    [CONFIRMATION_SETTLED]: ConfirmationRequest;
    [CONFIRMATION_REQUESTED]: ConfirmationRequest;
    /** The id of a request another instance settled (its NOTIFY; not the echo of a settlement sent here). */
    [CONFIRMATION_NOTIFIED]: string;
    [CONFIRMATION_VOTED]: ConfirmationRequest;
    [CONFIRMATION_STEPPED]: ConfirmationRequest;
  }
}
/**
 * Postgres NOTIFY channel; the payload is the confirmation id when a row left `pending`, `requested:<id>[:<ms>]`
 * when a row was created (with the epoch ms of its first reminder or escalation, if any), `voted:<id>` when a vote
 * was counted and `stepped:<id>` when a reminder or escalation was taken (the waiters ignore those; the inbox stream
 * shows them). Read them with `confirmationNotice`.
 */
export const CONFIRMATION_NOTIFY_CHANNEL = 'confirmation_decided';

/** One payload of the confirmations' NOTIFY channel, read. */
export interface ConfirmationNotice {
  kind: 'decided' | 'requested' | 'voted' | 'stepped';
  id: string;
  /** `requested`: when its first reminder or escalation is due (epoch ms); absent when it has none. */
  firstStepAt?: number;
}

export function confirmationNotice(payload: string): ConfirmationNotice {
  const [head, id, at] = payload.split(':') as [string, string?, string?];
  if (id === undefined) return { kind: 'decided', id: head };
  const kind = head as ConfirmationNotice['kind'];
  return at ? { kind, id, firstStepAt: Number(at) } : { kind, id };
}

export { rowToConfirmation, type ConfirmationRow } from './confirmation-row.js';

/** The API shape (API.md "Confirmations"): snake_case; the platform message specifics stay internal. */
export function confirmationView(c: ConfirmationRequest): Record<string, unknown> {
  return {
    id: c.id,
    run_id: c.runId,
    call_id: c.callId,
    agent_id: c.agentId,
    agent_name: c.agentName,
    tool: c.tool,
    args: c.args,
    args_digest: c.argsDigest,
    args_intact: c.argsIntact,
    status: c.status,
    requested_by: c.requestedBy,
    approver_scope: c.approverScope,
    forbid_self_approval: c.forbidSelfApproval,
    approvers: c.approvers ?? [c.approverScope],
    tier: c.tier,
    approvals_required: c.approvalsRequired,
    approvals_given: c.approvalsGiven,
    approvals_progress: approvalsProgress(c),
    channel_id: c.channelId,
    channel_type: c.channelType,
    expires_at: c.expiresAt.toISOString(),
    created_at: c.createdAt.toISOString(),
    responded_by: c.respondedByName,
    responded_by_user_id: c.respondedByUserId,
    responded_by_open_id: c.respondedByOpenId,
    responded_by_platform: c.respondedByPlatform,
    responded_at: c.respondedAt?.toISOString() ?? null,
    reason: c.reason,
    args_schema: c.argsSchema,
    original_args: c.originalArgs,
    edited_by: c.editedByName,
    edited_by_user_id: c.editedByUserId,
    ask_reason: c.askReason,
    trigger: c.trigger,
    member_message: c.memberMessage,
    remind_at: c.remindAt?.toISOString() ?? null,
    reminded_at: c.remindedAt?.toISOString() ?? null,
    escalate_at: c.escalateAt?.toISOString() ?? null,
    escalated_at: c.escalatedAt?.toISOString() ?? null,
    escalation_channel_id: c.escalationChannelId,
    batch_key: c.batchKey,
    batch_position: c.batchPosition,
  };
}

/** "1 of 2 approvals", as the inbox and the cards show it. */
export const approvalsProgress = (c: Pick<ConfirmationRequest, 'approvalsGiven' | 'approvalsRequired'>): string =>
  `${Math.min(c.approvalsGiven, c.approvalsRequired)} of ${c.approvalsRequired} ` +
  `approval${c.approvalsRequired === 1 ? '' : 's'}`;

/** A person's reason as stored: trimmed; a blank one is none. */
export function reasonOf(text: string | null | undefined): string | null {
  const trimmed = text?.trim();
  if (!trimmed) return null;
  return trimmed;
}
