import { claimOnSettle } from '@warden/agents/settle-port';
import { CONFIRMATION_COLUMN_LIST as COLUMNS, confirmationColumns as columnsOf } from './confirmation-row.js';
import { GRANTS_OF_APPROVING_VOTES, type Vote } from './confirmation-votes.store.js';
import { CONFIRMATION_NOTIFY_CHANNEL, ConfirmationStatus } from './confirmation.types.js';
import {
  candidateEntries,
  type ListFilter,
  type NewConfirmation,
  type Settlement,
} from './confirmation-store.types.js';

// The statements that create and decide a confirmation request, built apart from ConfirmationStore, which runs them:
// their column lists and parameter orders in one place. Each carries its own pg_notify (delivered at commit). Rows
// come back as named columns, never `*`, so each statement is prepared once per connection (named-statements.ts).

/** An edit's values in statement order ($n..$n+5): args, digest, editor id and name, tier, approvers. */
export const editValues = (e: NonNullable<Settlement['edit']>) => [
  JSON.stringify(e.args),
  e.argsDigest,
  e.byUserId,
  e.byName,
  e.tier,
  JSON.stringify(e.approvers),
];

/**
 * Inserts a request unless its run + call has one (then no row); notifies `requested:<id>`, followed by
 * `:<epoch ms>` of its first reminder or escalation when it has one (what another instance's escalator arms for).
 */
export const INSERT_SQL = `WITH inserted AS (INSERT INTO confirmation_requests
         (org_id, agent_id, agent_name, run_id, call_id, tool, args, requested_by, approver_scope, agent_owner_id,
          forbid_self_approval, channel_id, channel_type, expires_at, approvers, tier, approvals_required,
          decisive_fields, args_digest, args_schema, ask_reason, remind_at, escalate_at, escalate_to, batch_key,
          batch_position, policy, policy_version, "trigger", member_message)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11, $12, $13, now() + make_interval(secs => $14),
               $15::jsonb, $16, $17, $18::jsonb, $19, $20::jsonb, $21,
               now() + make_interval(secs => $22), now() + make_interval(secs => $23),
               $24::jsonb, $25, $26, $27::jsonb, $28, $29, $30)
       ON CONFLICT (run_id, call_id) DO NOTHING
       RETURNING ${COLUMNS})
       SELECT ${columnsOf('inserted')}, pg_notify('${CONFIRMATION_NOTIFY_CHANNEL}', 'requested:' || inserted.id::text
         || COALESCE(':' || floor(extract(epoch FROM least(inserted.remind_at, inserted.escalate_at)) * 1000)::bigint,
                     ''))
         AS notified FROM inserted`;

/** INSERT_SQL's parameters, in order. */
export function insertParams(input: NewConfirmation): unknown[] {
  return [
    input.orgId,
    input.agentId,
    input.agentName,
    input.runId,
    input.callId,
    input.tool,
    JSON.stringify(input.args),
    input.requestedBy,
    input.approverScope,
    input.agentOwnerId,
    input.forbidSelfApproval,
    input.channelId,
    input.channelType,
    input.timeoutS,
    JSON.stringify(input.approvers),
    input.tier,
    input.approvalsRequired,
    JSON.stringify(input.decisiveFields),
    input.argsDigest,
    input.argsSchema ? JSON.stringify(input.argsSchema) : null,
    input.askReason ?? null,
    input.remindAfterS ?? null,
    input.escalateAfterS ?? null,
    input.escalateTo ? JSON.stringify(input.escalateTo) : null,
    input.batch?.key ?? null,
    input.batch?.position ?? null,
    JSON.stringify(input.policy),
    input.policyVersion,
    input.trigger ?? null,
    input.memberMessage ?? null,
  ];
}

/** An edit into a tier its editor alone cannot satisfy ($2..$7: editValues, $8: approvals required). */
export const REBIND_SQL = `UPDATE confirmation_requests
    SET original_args = COALESCE(original_args, args), args = $2::jsonb, args_digest = $3, edited_by_user_id = $4,
        edited_by_name = $5, tier = $6, approvers = $7::jsonb, approvals_required = $8, updated_at = now()
  WHERE id = $1 AND status = 'pending' AND expires_at > now() AND approvals_given = 0 RETURNING ${COLUMNS}`;

/** Where the card went ($2: its message id, $3: the sent card), so the decided version can replace it. */
export const RECORD_DELIVERY_SQL = `UPDATE confirmation_requests
    SET platform_message_id = $2, sent_card = $3::jsonb, updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`;

/**
 * The statement that moves a pending row to its final state (ConfirmationStore.settle): a decision only before the
 * deadline, an expiry always; an approval carries its grants and, edited, the edit — never one without the other.
 */
export function settleStatement(
  id: string,
  s: Settlement,
  claim?: { instanceId: string; leaseMs: number },
): { sql: string; params: unknown[] } {
  const beforeDeadline = s.status === ConfirmationStatus.Expired ? '' : 'AND expires_at > now()';
  // An edit rebinds the approval to the edited args in the statement that decides it: never one without the other.
  const edit = s.edit && s.status === ConfirmationStatus.Approved ? s.edit : undefined;
  const editSet = edit
    ? `, original_args = COALESCE(original_args, args), args = $8::jsonb, args_digest = $9, edited_by_user_id = $10,
         edited_by_name = $11, tier = $12, approvers = $13::jsonb`
    : '';
  const editParams = edit ? editValues(edit) : [];
  // An approval carries its grants: the approving votes, each a statement about a digest (docs/authorization.md).
  const grantsSet = s.status === ConfirmationStatus.Approved ? `, grants = ${GRANTS_OF_APPROVING_VOTES}` : '';
  const params: unknown[] = [
    id,
    s.status,
    s.respondedByUserId ?? null,
    s.respondedByOpenId ?? null,
    s.respondedByPlatform ?? null,
    s.respondedByName,
    s.reason ?? null,
    ...editParams,
  ];
  // The engine's claim of the run parked on this request, in the decision's own statement (settle-port.ts).
  const param = (value: unknown) => `$${params.push(value)}`;
  const claimed = claim ? `,\n       claimed AS (${claimOnSettle('settled', param, claim)})` : '';
  const claimedRuns = claim ? `, (SELECT coalesce(json_agg(claimed), '[]'::json) FROM claimed) AS claimed_runs` : '';
  const sql = `WITH settled AS (
         UPDATE confirmation_requests c
            SET status = $2, responded_at = now(), responded_by_user_id = $3, responded_by_open_id = $4,
                responded_by_platform = $5, responded_by_name = $6, reason = $7,
                updated_at = now()${editSet}${grantsSet}
          WHERE id = $1 AND status = 'pending' ${beforeDeadline}
          RETURNING ${COLUMNS})${claimed}
       SELECT ${columnsOf('settled')},
              pg_notify('${CONFIRMATION_NOTIFY_CHANNEL}', settled.id::text) AS notified${claimedRuns}
         FROM settled`;
  return { sql, params };
}

/**
 * One person's vote that settles the request on its own (a rejection, or the only approval a one-approval request
 * needs, with no edit), recorded and applied in one statement (ConfirmationDecisionService.decide): the request is
 * locked first, so a concurrent decision either finishes before (this vote then finds it decided and records nothing)
 * or after. The vote is always counted; it settles only if, on the locked row, it still decides alone (a rejection, or
 * no approval yet and one required) — otherwise the row comes back pending with the vote counted, as a vote alone
 * would leave it. An approval's grants are this vote's alone: no other approval exists when it settles.
 */
export function voteSettleStatement(
  v: Vote,
  s: Omit<Settlement, 'edit'>,
  claim?: { instanceId: string; leaseMs: number },
): { sql: string; params: unknown[] } {
  const params: unknown[] = [v.confirmationId];
  const param = (value: unknown) => `$${params.push(value)}`;
  const decides = `(vote.decision = 'reject' OR (c.approvals_given = 0 AND c.approvals_required <= 1))`;
  const set = (column: string, value: string) => `${column} = CASE WHEN ${decides} THEN ${value} ELSE c.${column} END`;
  const grant = `CASE WHEN vote.decision = 'approve' AND vote.args_digest IS NOT NULL THEN jsonb_build_array(
      jsonb_build_object('kind', CASE WHEN vote.args_digest IS DISTINCT FROM c.args_digest
                                        OR vote.user_id = c.edited_by_user_id THEN 'edit' ELSE 'vote' END,
        'principal', vote.user_id, 'digest', vote.args_digest, 'policyVersion', vote.policy_version,
        'tier', vote.tier)) ELSE '[]'::jsonb END`;
  const settledSet = [
    set('status', param(s.status)),
    set('responded_at', 'now()'),
    set('responded_by_user_id', param(s.respondedByUserId ?? null)),
    set('responded_by_open_id', param(s.respondedByOpenId ?? null)),
    set('responded_by_platform', param(s.respondedByPlatform ?? null)),
    set('responded_by_name', param(s.respondedByName)),
    set('reason', param(s.reason ?? null)),
    ...(s.status === ConfirmationStatus.Approved ? [set('grants', grant)] : []),
  ].join(',\n                ');
  const voteValues = [
    ...[v.userId, v.userName, v.decision, v.platform, v.externalId].map(param),
    `${param(JSON.stringify(v.approvers))}::jsonb`,
    ...[v.tier, v.argsDigest, v.policyVersion].map(param),
  ].join(', ');
  const claimed = claim ? `,\n       claimed AS (${claimOnSettle('decided', param, claim)})` : '';
  const claimedRuns = claim ? `, (SELECT coalesce(json_agg(claimed), '[]'::json) FROM claimed) AS claimed_runs` : '';
  const sql = `WITH open AS (
         SELECT id FROM confirmation_requests WHERE id = $1 AND status = 'pending' AND expires_at > now() FOR UPDATE),
       vote AS (
         INSERT INTO confirmation_votes
           (confirmation_id, user_id, user_name, decision, platform, external_id,
            approvers, tier, args_digest, policy_version)
         SELECT open.id, ${voteValues} FROM open
         ON CONFLICT (confirmation_id, user_id) DO NOTHING
         RETURNING confirmation_id, user_id, decision, tier, args_digest, policy_version),
       settled AS (
         UPDATE confirmation_requests c
            SET approvals_given = c.approvals_given + CASE WHEN vote.decision = 'approve' THEN 1 ELSE 0 END,
                updated_at = now(),
                ${settledSet}
           FROM vote WHERE c.id = vote.confirmation_id
         RETURNING ${columnsOf('c')}),
       decided AS (SELECT id, run_id FROM settled WHERE status <> 'pending')${claimed}
       SELECT ${columnsOf('settled')}, pg_notify('${CONFIRMATION_NOTIFY_CHANNEL}',
                CASE WHEN settled.status = 'pending' THEN 'voted:' ELSE '' END || settled.id::text) AS notified
         ${claimedRuns} FROM settled`;
  return { sql, params };
}

/**
 * A page of an org's requests, newest first; `afterId` pages on (created_at, id). `candidatesFor` narrows to rows the
 * member made or whose approver list could name them — a superset: the approver policy (approver-check.ts) decides row
 * by row.
 */
export function listStatement(orgId: string, filter: ListFilter): { sql: string; params: unknown[] } {
  const c = filter.candidatesFor;
  const sql = `SELECT ${COLUMNS} FROM confirmation_requests
        WHERE org_id = $1 AND ($2::text IS NULL OR status = $2)
          AND ($4::uuid IS NULL OR (created_at, id) < (SELECT b.created_at, b.id FROM confirmation_requests b
                                                        WHERE b.id = $4))
          AND ($5::uuid IS NULL OR requested_by = $5 OR EXISTS (
                SELECT 1
                  FROM jsonb_array_elements_text(COALESCE(approvers, jsonb_build_array(approver_scope))) AS a(entry)
                 WHERE entry IN ('org_members', 'channel') OR entry LIKE 'users:%' OR entry = ANY($6::text[])
                    OR (entry = 'agent_owner' AND agent_owner_id = $5)))
        ORDER BY created_at DESC, id DESC LIMIT $3`;
  const params = [
    orgId,
    filter.status ?? null,
    filter.limit,
    filter.afterId ?? null,
    c?.userId ?? null,
    candidateEntries(c?.roles ?? []),
  ];
  return { sql, params };
}
