import type { MemberView } from '@warden/auth';
import type { ChatPlatform, Decision } from '@warden/channels';
import type { ConfirmationRequest } from './confirmation.types.js';

/** A Warden user, resolved from a signed-in token or from a proven chat identity, about to decide. */
export interface ResolvedDecider {
  member: MemberView;
  /** The chat identity the click came from; absent for the API. */
  via?: { platform: ChatPlatform; externalId: string };
}

/** The channel's own approver list as it is now (`["*"]` = anyone in the chat). */
export interface ChannelList {
  type?: string;
  ids?: string[];
}

const WORDS: Record<string, string> = {
  initiator: 'the user who started the run',
  agent_owner: "the agent's owner",
  org_members: 'members of the organisation',
  org_admins: 'organisation admins',
  channel: "the channel's approver list",
};

const describe = (entry: string): string =>
  WORDS[entry] ??
  (entry.startsWith('role:')
    ? `users with the role "${entry.slice(5)}"`
    : `the users ${entry.slice(6).split(',').join(', ')}`);

/** The approver list that binds this request: the one stored with it, or (older rows) its scope. */
export const approversOf = (row: ConfirmationRequest): string[] => row.approvers ?? [row.approverScope];

/** Does the decider's identity on the channel's platform appear on the channel's list? */
function onChannelList(d: ResolvedDecider, list: ChannelList): boolean {
  if (!list.ids || !list.type) return false;
  const id = d.via?.platform === list.type ? d.via.externalId : d.member.identities[list.type as ChatPlatform];
  if (!id) return false;
  return list.ids.includes('*') || list.ids.includes(id);
}

function satisfies(entry: string, row: ConfirmationRequest, d: ResolvedDecider, list: ChannelList): boolean {
  const m = d.member;
  if (entry === 'initiator') return row.requestedBy !== null && m.userId === row.requestedBy;
  if (entry === 'agent_owner') return row.agentOwnerId !== null && m.userId === row.agentOwnerId;
  if (entry === 'org_members') return true;
  if (entry === 'org_admins') return m.roles.includes('admin');
  if (entry === 'channel') return onChannelList(d, list);
  if (entry.startsWith('role:')) return m.roles.includes(entry.slice(5));
  if (entry.startsWith('users:')) return entry.slice(6).split(',').includes(m.sub);
  return false;
}

/**
 * The one rule for "may this resolved user decide this row", used by the inbox API and every chat callback alike.
 * Returns why not, or null. The self-approval check compares resolved users, so no link state lets the requester
 * approve his own call; rejecting one's own request only stops it, so it is always allowed to those in the policy.
 */
export function refusalFor(
  row: ConfirmationRequest,
  d: ResolvedDecider,
  decision: Decision,
  list: ChannelList,
): string | null {
  // Deprovisioned in the directory (SCIM): no role, link or list entry of theirs counts any more.
  if (d.member.active === false) return `${d.member.sub} was deactivated in the directory and decides nothing`;
  const approvers = approversOf(row);
  if (!approvers.some((entry) => satisfies(entry, row, d, list))) {
    if (approvers.length === 1 && approvers[0] === 'channel' && d.via)
      return `${d.via.platform} user ${d.via.externalId} is not in this channel's approver list`;
    return `only ${approvers.map(describe).join(' or ')} may decide this request`;
  }
  if (
    decision === 'approve' &&
    row.forbidSelfApproval &&
    row.requestedBy !== null &&
    d.member.userId === row.requestedBy
  ) {
    return 'self-approval is forbidden for this agent: another approver must approve';
  }
  return null;
}
