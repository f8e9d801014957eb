import type { UsersService } from '@warden/auth';
import type { ApprovalCard } from '@warden/channels';
import { approversOf } from './approver-check.js';
import type { ConfirmationRequest } from './confirmation.types.js';

/** The card of a request as it stands (first sent, or re-rendered after a partial approval). */
export async function approvalCardOf(
  row: ConfirmationRequest,
  users: UsersService,
  publicUrl: string,
): Promise<ApprovalCard> {
  const requester = row.requestedBy ? await users.memberById(row.orgId, row.requestedBy).catch(() => null) : null;
  return {
    confirmationId: row.id,
    agentName: row.agentName ?? 'agent',
    tool: row.tool,
    args: row.args,
    requestedBy: { userId: row.requestedBy ?? '', name: requester ? (requester.name ?? requester.sub) : null },
    expiresAt: row.expiresAt,
    approverScope: approversOf(row).join(', '),
    decisiveFields: row.decisiveFields ?? [],
    approvalsRequired: row.approvalsRequired,
    approvalsGiven: row.approvalsGiven,
    link: `${publicUrl}/approvals/${row.id}`,
    askReason: whyAsked(row),
  };
}

/** The card's "Why": a hook's reason for asking, else the rule that fired (null for a question to a person). */
export function whyAsked(row: Pick<ConfirmationRequest, 'askReason' | 'trigger'>): string | null {
  return row.askReason ?? (row.trigger ? `the rule ${row.trigger} holds for these arguments` : null);
}
