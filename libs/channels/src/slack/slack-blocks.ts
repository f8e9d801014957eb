import type { ApprovalCard, DecidedCard } from '../channel.js';
import { isoMinute, prettyArgs, STATUS_WORDS } from '../shared/card-text.js';

/** Slack mrkdwn control characters; names are shown literally. */
const escapeMrkdwn = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const codeBlock = (s: string): string => '```' + escapeMrkdwn(s).replace(/```/g, '`\u200b``') + '```';

export type SlackBlock = Record<string, unknown>;

/** Block Kit approval message; each button's value carries the confirmation id and the decision. */
export function slackApprovalMessage(card: ApprovalCard): { text: string; blocks: SlackBlock[] } {
  const requester = card.requestedBy.name || card.requestedBy.userId;
  const button = (decision: 'approve' | 'reject') => ({
    type: 'button',
    action_id: `confirmation_${decision}`,
    text: { type: 'plain_text', text: decision === 'approve' ? 'Approve' : 'Reject' },
    style: decision === 'approve' ? 'primary' : 'danger',
    value: JSON.stringify({ confirmation_id: card.confirmationId, decision }),
  });
  return {
    text: `Approval needed: ${card.tool} (requested by ${requester})`,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: `Approval needed: ${card.tool}`.slice(0, 150) } },
      {
        type: 'section',
        fields: [
          { type: 'mrkdwn', text: `*Agent:*\n${escapeMrkdwn(card.agentName)}` },
          { type: 'mrkdwn', text: `*Requested by:*\n${escapeMrkdwn(requester)}` },
          { type: 'mrkdwn', text: `*Approvers:*\n${escapeMrkdwn(card.approverScope)}` },
          { type: 'mrkdwn', text: `*Expires:*\n${isoMinute(card.expiresAt)}` },
        ],
      },
      { type: 'section', text: { type: 'mrkdwn', text: codeBlock(prettyArgs(card.args)) } },
      { type: 'actions', block_id: `confirmation:${card.confirmationId}`, elements: [button('approve'), button('reject')] },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `Request ${card.confirmationId}` }] },
    ],
  };
}

/** The message after a decision: no buttons, who decided and when. */
export function slackDecidedMessage(d: DecidedCard): { text: string; blocks: SlackBlock[] } {
  const summary = `${STATUS_WORDS[d.status]} by ${d.decidedBy} at ${isoMinute(d.decidedAt)}`;
  const blocks: SlackBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: `${STATUS_WORDS[d.status]}: ${d.tool}`.slice(0, 150) } },
    { type: 'section', text: { type: 'mrkdwn', text: `*${escapeMrkdwn(summary)}*${d.reason ? `\nReason: ${escapeMrkdwn(d.reason)}` : ''}` } },
    { type: 'section', text: { type: 'mrkdwn', text: codeBlock(prettyArgs(d.args)) } },
    { type: 'context', elements: [{ type: 'mrkdwn', text: `Request ${d.confirmationId}` }] },
  ];
  return { text: `${d.tool}: ${summary}`, blocks };
}
