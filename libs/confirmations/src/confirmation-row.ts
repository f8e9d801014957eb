import type { ApproverScope, GrantStatement, PolicyInForce } from '@warden/hooks';
import type { ConfirmationRequest, ConfirmationStatus } from './confirmation.types.js';
import { checkedArgs } from './integrity/args-integrity.js';

const toDate = (v: unknown): Date => (v instanceof Date ? v : new Date(String(v)));
const toDateOrNull = (v: unknown): Date | null => (v === null || v === undefined ? null : toDate(v));

/** A `confirmation_requests` row as pg returns it (columns added later may be absent on old query shapes). */
export interface ConfirmationRow {
  id: string;
  org_id: string;
  agent_id: string | null;
  agent_name: string | null;
  run_id: string;
  call_id: string;
  tool: string;
  args?: Record<string, unknown> | null;
  args_digest?: string | null;
  /** The table's CHECK constraint admits only these values. */
  status: ConfirmationStatus;
  requested_by: string | null;
  approver_scope: ApproverScope;
  agent_owner_id: string | null;
  forbid_self_approval: boolean;
  approvers?: string[] | null;
  tier?: number | null;
  policy?: PolicyInForce | null;
  policy_version?: string | null;
  grants?: GrantStatement[] | null;
  approvals_required?: number | null;
  approvals_given?: number | null;
  decisive_fields?: string[] | null;
  channel_id: string | null;
  channel_type: string | null;
  platform_message_id: string | null;
  sent_card: { platformMessageId?: string; extra?: Record<string, unknown> } | null;
  expires_at: Date;
  responded_at: Date | null;
  responded_by_user_id: string | null;
  responded_by_open_id: string | null;
  responded_by_platform: string | null;
  responded_by_name: string | null;
  reason: string | null;
  args_schema?: Record<string, unknown> | null;
  original_args?: Record<string, unknown> | null;
  edited_by_user_id?: string | null;
  edited_by_name?: string | null;
  ask_reason?: string | null;
  trigger?: string | null;
  member_message?: string | null;
  remind_at: Date | null;
  reminded_at: Date | null;
  escalate_at: Date | null;
  escalated_at: Date | null;
  escalate_to?: { approvers?: string[]; channelId?: string } | null;
  escalation_channel_id?: string | null;
  escalation_card?: { platformMessageId?: string; extra?: Record<string, unknown> } | null;
  batch_key?: string | null;
  batch_position?: number | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * The columns of `confirmation_requests`, named where a statement returns rows instead of `*`: such a statement is
 * prepared once per connection (libs/database/src/named-statements.ts), and its result keeps its shape when a later
 * migration adds a column. `test/medium/confirmation-columns.spec.ts` fails when the table has a column not listed.
 */
export const CONFIRMATION_COLUMNS = [
  'id',
  'org_id',
  'agent_id',
  'agent_name',
  'run_id',
  'call_id',
  'tool',
  'args',
  'args_digest',
  'status',
  'requested_by',
  'approver_scope',
  'agent_owner_id',
  'forbid_self_approval',
  'approvers',
  'tier',
  'policy',
  'policy_version',
  'grants',
  'approvals_required',
  'approvals_given',
  'decisive_fields',
  'channel_id',
  'channel_type',
  'platform_message_id',
  'sent_card',
  'expires_at',
  'responded_at',
  'responded_by_user_id',
  'responded_by_open_id',
  'responded_by_platform',
  'responded_by_name',
  'reason',
  'args_schema',
  'original_args',
  'edited_by_user_id',
  'edited_by_name',
  'ask_reason',
  'trigger',
  'member_message',
  'remind_at',
  'reminded_at',
  'escalate_at',
  'escalated_at',
  'escalate_to',
  'escalation_channel_id',
  'escalation_card',
  'batch_key',
  'batch_position',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof ConfirmationRow>;

/** `CONFIRMATION_COLUMNS` as a select list, each qualified by `alias` when given (`c.id, c.org_id, ...`). */
export function confirmationColumns(alias?: string): string {
  const prefix = alias ? `${alias}.` : '';
  // "trigger" is a keyword: quoted wherever it is named.
  return CONFIRMATION_COLUMNS.map((c) => prefix + (c === 'trigger' ? '"trigger"' : c)).join(', ');
}

/** `CONFIRMATION_COLUMNS` as an unqualified select list. */
export const CONFIRMATION_COLUMN_LIST = confirmationColumns();

/** Maps a raw `confirmation_requests` row (snake_case, as pg returns it) to the typed shape. */
export function rowToConfirmation(r: ConfirmationRow): ConfirmationRequest {
  // Every reader gets args checked against the digest: what people are shown is what an approval would bind.
  const checked = checkedArgs(r.tool, r.args ?? {}, r.args_digest ?? null);
  return {
    id: r.id,
    orgId: r.org_id,
    agentId: r.agent_id,
    agentName: r.agent_name,
    runId: r.run_id,
    callId: r.call_id,
    tool: r.tool,
    args: checked.args,
    argsDigest: r.args_digest ?? null,
    argsIntact: checked.intact,
    status: r.status,
    requestedBy: r.requested_by,
    approverScope: r.approver_scope,
    agentOwnerId: r.agent_owner_id,
    forbidSelfApproval: r.forbid_self_approval,
    approvers: r.approvers ?? null,
    tier: r.tier ?? null,
    policy: r.policy ?? null,
    policyVersion: r.policy_version ?? null,
    grants: r.grants ?? null,
    approvalsRequired: r.approvals_required ?? 1,
    approvalsGiven: r.approvals_given ?? 0,
    decisiveFields: r.decisive_fields ?? null,
    channelId: r.channel_id,
    channelType: r.channel_type,
    platformMessageId: r.platform_message_id,
    sentCard: r.sent_card,
    expiresAt: toDate(r.expires_at),
    respondedAt: toDateOrNull(r.responded_at),
    respondedByUserId: r.responded_by_user_id,
    respondedByOpenId: r.responded_by_open_id,
    respondedByPlatform: r.responded_by_platform,
    respondedByName: r.responded_by_name,
    reason: r.reason,
    argsSchema: r.args_schema ?? null,
    originalArgs: r.original_args ?? null,
    editedByUserId: r.edited_by_user_id ?? null,
    editedByName: r.edited_by_name ?? null,
    askReason: r.ask_reason ?? null,
    trigger: r.trigger ?? null,
    memberMessage: r.member_message ?? null,
    remindAt: toDateOrNull(r.remind_at),
    remindedAt: toDateOrNull(r.reminded_at),
    escalateAt: toDateOrNull(r.escalate_at),
    escalatedAt: toDateOrNull(r.escalated_at),
    escalateTo: r.escalate_to ?? null,
    escalationChannelId: r.escalation_channel_id ?? null,
    escalationCard: r.escalation_card ?? null,
    batchKey: r.batch_key ?? null,
    batchPosition: r.batch_position ?? null,
    createdAt: toDate(r.created_at),
    updatedAt: toDate(r.updated_at),
  };
}
