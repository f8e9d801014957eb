import type { ApprovalCard, DecidedCard } from '../channel.js';
import {
  approvalsNote,
  cardArgs,
  isoMinute,
  omittedNote,
  oneLine,
  prettyArgs,
  STATUS_WORDS,
  requesterLabel,
} from '../shared/card-text.js';

/**
 * Feishu markdown treats these as markup; names, tools and arg values are shown literally, on one line each, so no
 * string can add a line, a link, a mention (`<at>`) or a button.
 */
const escapeMd = (s: string): string =>
  oneLine(s)
    .replace(/([\\`*_~[\]()#|{}!-])/g, '\\$1')
    .replace(/</g, '&#60;')
    .replace(/>/g, '&#62;');
/** A code block must not be closable from inside the args. */
const codeBlock = (s: string): string => '```json\n' + s.replace(/```/g, '`\u200b``') + '\n```';

const HEADER_TEMPLATE: Record<DecidedCard['status'], string> = { approved: 'green', rejected: 'red', expired: 'grey' };

/** Card JSON 2.0 with Approve / Reject buttons; each button's callback value carries the confirmation id. */
export function feishuApprovalCard(card: ApprovalCard): Record<string, unknown> {
  const requester = requesterLabel(card.requestedBy);
  const button = (decision: 'approve' | 'reject') => ({
    tag: 'button',
    // Feishu requires a name on callback buttons (error 200340 without one); unique per card.
    name: `btn_${decision}_${card.confirmationId}`,
    text: { tag: 'plain_text', content: decision === 'approve' ? 'Approve' : 'Reject' },
    type: decision === 'approve' ? 'primary_filled' : 'danger_filled',
    behaviors: [{ type: 'callback', value: { confirmation_id: card.confirmationId, decision } }],
  });
  const args = cardArgs(card.args, card.decisiveFields);
  // The fields that decide come first and whole; the rest is capped, with where to read all of it.
  const decisive = args.decisive.map(([k, v]) => `**${escapeMd(k)}:** ${escapeMd(v)}`);
  const needed = approvalsNote(card.approvalsRequired, card.approvalsGiven);
  const elements: Array<Record<string, unknown>> = [
    ...(card.askReason ? [{ tag: 'markdown', content: `**Why:** ${escapeMd(card.askReason)}` }] : []),
    ...(decisive.length ? [{ tag: 'markdown', content: decisive.join('\n') }] : []),
    {
      tag: 'markdown',
      content: [
        `**Agent:** ${escapeMd(card.agentName)}`,
        `**Tool:** ${escapeMd(card.tool)}`,
        `**Requested by:** ${escapeMd(requester)}`,
        `**Approvers:** ${escapeMd(card.approverScope)}`,
        ...(needed ? [`**Approvals:** ${needed}`] : []),
        `**Expires:** ${isoMinute(card.expiresAt)}`,
        `**Request:** ${card.confirmationId}`,
      ].join('\n'),
    },
  ];
  if (args.rest) elements.push({ tag: 'markdown', content: codeBlock(args.rest) });
  if (args.omitted) {
    const more = escapeMd(omittedNote(args.omitted));
    elements.push({ tag: 'markdown', content: card.link ? `${more}: [${card.link}](${card.link})` : more });
  }
  // Editing args needs a form: the card links to the request in Warden, where it can be approved with changes.
  if (card.link) elements.push({ tag: 'markdown', content: `Edit in Warden: ${card.link}` });
  return {
    schema: '2.0',
    config: { update_multi: true },
    header: {
      title: {
        tag: 'plain_text',
        content: oneLine(`${card.escalated ? 'Escalated: approval' : 'Approval'} needed: ${card.tool}`),
      },
      template: card.escalated ? 'red' : 'orange',
    },
    body: { elements: [...elements, button('approve'), button('reject')] },
  };
}

/** The card after a decision: no buttons, who decided and when. */
export function feishuDecidedCard(d: DecidedCard): Record<string, unknown> {
  const lines = [
    `**Tool:** ${escapeMd(d.tool)}`,
    `**${STATUS_WORDS[d.status]} by:** ${escapeMd(d.decidedBy)}`,
    `**At:** ${isoMinute(d.decidedAt)}`,
    `**Request:** ${d.confirmationId}`,
  ];
  if (d.reason) lines.push(`**Reason:** ${escapeMd(d.reason)}`);
  return {
    schema: '2.0',
    config: { update_multi: true },
    header: {
      title: { tag: 'plain_text', content: oneLine(`${STATUS_WORDS[d.status]}: ${d.tool}`) },
      template: HEADER_TEMPLATE[d.status],
    },
    body: {
      elements: [
        { tag: 'markdown', content: lines.join('\n') },
        { tag: 'markdown', content: codeBlock(prettyArgs(d.args)) },
      ],
    },
  };
}

/** A notification from an agent: the text is markdown written by the agent, shown as is. */
export function feishuNotificationCard(text: string): Record<string, unknown> {
  return {
    schema: '2.0',
    config: { update_multi: true },
    body: { elements: [{ tag: 'markdown', content: text }] },
  };
}
