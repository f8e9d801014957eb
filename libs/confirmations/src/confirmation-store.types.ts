import type { ApproverScope, PolicyInForce } from '@warden/hooks';
import type { ConfirmationStatus } from './confirmation.types.js';

/** What ConfirmationStore.insertOrGet records: one approval request for one tool call. */
export interface NewConfirmation {
  orgId: string;
  agentId: string | null;
  agentName: string | null;
  runId: string;
  callId: string;
  tool: string;
  args: Record<string, unknown>;
  /** actionDigest(tool, args): what an approval of this row binds to. */
  argsDigest: string;
  requestedBy: string | null;
  approverScope: ApproverScope;
  agentOwnerId: string | null;
  forbidSelfApproval: boolean;
  /** The approver policy, tier and approvals count that apply (issue #14). */
  approvers: string[];
  tier: number | null;
  approvalsRequired: number;
  decisiveFields: string[];
  /** The policy the request is asked under and its version (libs/policy). */
  policy: PolicyInForce;
  policyVersion: string;
  channelId: string;
  channelType: string;
  timeoutS: number;
  /** The tool's parameter schema (edits are validated against it); null when the tool has none. */
  argsSchema?: Record<string, unknown> | null;
  /** A hook asked for this approval, with this reason. */
  askReason?: string | null;
  /** The rule that made the call need a person (the action's condition...), and the member's message of the run. */
  trigger?: string | null;
  memberMessage?: string | null;
  /** Reminder / escalation delays (seconds after the request) and whom to escalate to. */
  remindAfterS?: number;
  escalateAfterS?: number;
  escalateTo?: { approvers?: string[]; channelId?: string };
  /** One card per turn: the turn's batch key and this call's position in it. */
  batch?: { key: string; position: number } | null;
}

export interface ListFilter {
  status?: ConfirmationStatus;
  limit: number;
  /** Rows older than this one (its created_at, id): the next page. */
  afterId?: string;
  candidatesFor?: { userId: string; roles: string[] };
}

/** Approver entries a member with these roles could satisfy by role alone. */
export const candidateEntries = (roles: string[]): string[] => [
  ...roles.map((r) => `role:${r}`),
  ...(roles.includes('admin') ? ['org_admins'] : []),
];

/** Who moved a row out of `pending`, and why. */
export interface Settlement {
  status: Exclude<ConfirmationStatus, ConfirmationStatus.Pending>;
  respondedByUserId?: string | null;
  respondedByOpenId?: string | null;
  respondedByPlatform?: string | null;
  respondedByName: string;
  reason?: string | null;
  /**
   * Approve with changes: the edited args and their digest replace `args` / `args_digest` in the same statement,
   * with the tier and approvers the policy gives the edited args (re-tiered, docs/authorization.md).
   */
  edit?: {
    args: Record<string, unknown>;
    argsDigest: string;
    byUserId: string | null;
    byName: string;
    tier: number | null;
    approvers: string[];
  };
}
