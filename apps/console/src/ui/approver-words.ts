/** Who may decide a request, in words, from the policy copied into it (README "Who may approve"). */
const KIND_WORDS: Record<string, string> = {
  initiator: 'you (the requester)',
  agent_owner: "the agent's owner",
  org_members: 'any member',
  org_admins: 'an org admin',
  channel: "the channel's approvers",
};

function entryWords(entry: string): string {
  if (KIND_WORDS[entry]) return KIND_WORDS[entry];
  if (entry.startsWith('role:')) return `someone with the ${entry.slice(5)} role`;
  if (entry.startsWith('users:')) return entry.slice(6).split(',').join(' or ');
  return entry;
}

export interface ApproverPolicyView {
  approvers?: string[];
  approver_scope: string;
  forbid_self_approval: boolean;
  approvals_required: number;
  approvals_given: number;
}

/**
 * Said to the requester: "approval by an org admin", "2 approvals by any member other than you (1 of 2 given)". The
 * requester only shows as a possible approver when the policy lets them decide their own call.
 */
export function approvalAwaited(row: ApproverPolicyView): string {
  const entries = row.approvers?.length ? row.approvers : [row.approver_scope];
  const names = entries.filter((e) => !(row.forbid_self_approval && e === 'initiator')).map(entryWords);
  const anyOf = names.length ? names.join(' or ') : 'an approver';
  const who = `${anyOf}${row.forbid_self_approval ? ' other than you' : ''}`;
  if (row.approvals_required <= 1) return `approval by ${who}`;
  return `${row.approvals_required} approvals by ${who} (${row.approvals_given} of ${row.approvals_required} given)`;
}
