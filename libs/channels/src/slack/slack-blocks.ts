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

/** Slack mrkdwn control characters (links, mentions) escaped; line breaks flattened so no text adds a line. */
const escapeText = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeMrkdwn = (s: string): string => escapeText(oneLine(s)).replace(/([*_~`])/g, '\u200b$1\u200b');
const codeBlock = (s: string): string => '```' + escapeText(s).replace(/```/g, '`\u200b``') + '```';

export type SlackBlock = Record<string, unknown>;

/** Block Kit approval message; each button's value carries the confirmation id and the decision. */
export function slackApprovalMessage(card: ApprovalCard): { text: string; blocks: SlackBlock[] } {
  const requester = requesterLabel(card.requestedBy);
  const button = (decision: 'approve' | 'reject') => ({
    type: 'button',
    action_id: `confirmation_${decision}`,
    text: { type: 'plain_text', text: decision === 'approve' ? 'Approve' : 'Reject' },
    style: decision === 'approve' ? 'primary' : 'danger',
    value: JSON.stringify({ confirmation_id: card.confirmationId, decision }),
  });
  const args = cardArgs(card.args, card.decisiveFields);
  const needed = approvalsNote(card.approvalsRequired, card.approvalsGiven);
  const blocks: SlackBlock[] = [
    {
      type: 'header',
      text: {
        type: 'plain_text',
        text: oneLine(`${card.escalated ? 'Escalated: approval' : 'Approval'} needed: ${card.tool}`).slice(0, 150),
      },
    },
  ];
  if (card.askReason)
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `*Why:* ${escapeMrkdwn(card.askReason)}` } });
  // The fields that decide come first and whole; the rest is capped, with where to read all of it.
  if (args.decisive.length) {
    blocks.push({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: args.decisive.map(([k, v]) => `*${escapeMrkdwn(k)}:* ${escapeMrkdwn(v)}`).join('\n'),
      },
    });
  }
  blocks.push({
    type: 'section',
    fields: [
      { type: 'mrkdwn', text: `*Agent:*\n${escapeMrkdwn(card.agentName)}` },
      { type: 'mrkdwn', text: `*Requested by:*\n${escapeMrkdwn(requester)}` },
      { type: 'mrkdwn', text: `*Approvers:*\n${escapeMrkdwn(card.approverScope)}${needed ? ` (${needed})` : ''}` },
      { type: 'mrkdwn', text: `*Expires:*\n${isoMinute(card.expiresAt)}` },
    ],
  });
  if (args.rest) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: codeBlock(args.rest) } });
  if (args.omitted)
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: escapeText(omittedNote(args.omitted, card.link)) }],
    });
  blocks.push(
    {
      type: 'actions',
      block_id: `confirmation:${card.confirmationId}`,
      elements: [button('approve'), button('reject')],
    },
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `Request ${card.confirmationId}${card.link ? ` · Edit in Warden: ${escapeText(card.link)}` : ''}`,
        },
      ],
    },
  );
  return { text: oneLine(`Approval needed: ${card.tool} (requested by ${requester})`), blocks };
}

/** The message after a decision: no buttons, who decided and when. */
export function slackDecidedMessage(d: DecidedCard): { text: string; blocks: SlackBlock[] } {
  const summary = `${STATUS_WORDS[d.status]} by ${d.decidedBy} at ${isoMinute(d.decidedAt)}`;
  const blocks: SlackBlock[] = [
    {
      type: 'header',
      text: { type: 'plain_text', text: oneLine(`${STATUS_WORDS[d.status]}: ${d.tool}`).slice(0, 150) },
    },
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: `*${escapeMrkdwn(summary)}*${d.reason ? `\nReason: ${escapeMrkdwn(d.reason)}` : ''}`,
      },
    },
    { type: 'section', text: { type: 'mrkdwn', text: codeBlock(prettyArgs(d.args)) } },
    { type: 'context', elements: [{ type: 'mrkdwn', text: `Request ${d.confirmationId}` }] },
  ];
  return { text: `${d.tool}: ${summary}`, blocks };
}
