import type { BatchCard } from '../channel.js';
import { cardArgs, isoMinute, oneLine, STATUS_WORDS, requesterLabel } from '../shared/card-text.js';

const escapeMd = (s: string): string =>
  oneLine(s)
    .replace(/([\\`*_~[\]()#|{}!-])/g, '\\$1')
    .replace(/</g, '&#60;')
    .replace(/>/g, '&#62;');
const codeBlock = (s: string): string => '```json\n' + s.replace(/```/g, '`\u200b``') + '\n```';

const button = (confirmationId: string, decision: 'approve' | 'reject', label: string, all = false) => ({
  tag: 'button',
  name: `btn_${all ? 'all_' : ''}${decision}_${confirmationId}`,
  text: { tag: 'plain_text', content: label },
  type: decision === 'approve' ? 'primary_filled' : 'danger_filled',
  behaviors: [
    { type: 'callback', value: { confirmation_id: confirmationId, decision, ...(all ? { all: true } : {}) } },
  ],
});

/**
 * One card for the gated calls of one model turn: each call with its args and its own Approve / Reject (or, once
 * decided, its outcome), then "Approve all" / "Reject all" while more than one is pending. Same escaping rules as
 * the single card: no string can add a line, a link, a mention or a button.
 */
export function feishuBatchCard(card: BatchCard): Record<string, unknown> {
  const pending = card.items.filter((i) => i.status === 'pending');
  const elements: Array<Record<string, unknown>> = [
    {
      tag: 'markdown',
      content: [
        `**Agent:** ${escapeMd(card.agentName)}`,
        `**Requested by:** ${escapeMd(requesterLabel(card.requestedBy))}`,
        `**Expires:** ${isoMinute(card.expiresAt)}`,
      ].join('\n'),
    },
  ];
  card.items.forEach((item, i) => {
    const args = cardArgs(item.args, item.decisiveFields);
    const outcome =
      item.status === 'pending'
        ? 'pending'
        : `${STATUS_WORDS[item.status]} by ${escapeMd(item.decidedBy ?? 'unknown')}` +
          (item.reason ? ` (${escapeMd(item.reason)})` : '');
    elements.push({ tag: 'hr' });
    elements.push({
      tag: 'markdown',
      content: [
        `**${i + 1}. ${escapeMd(item.tool)}** — ${outcome}`,
        ...(item.askReason ? [`**Why:** ${escapeMd(item.askReason)}`] : []),
        ...args.decisive.map(([k, v]) => `**${escapeMd(k)}:** ${escapeMd(v)}`),
        `**Request:** ${item.confirmationId}`,
      ].join('\n'),
    });
    if (args.rest) elements.push({ tag: 'markdown', content: codeBlock(args.rest) });
    if (item.status === 'pending')
      elements.push(button(item.confirmationId, 'approve', 'Approve'), button(item.confirmationId, 'reject', 'Reject'));
  });
  if (pending.length > 1) {
    elements.push(
      { tag: 'hr' },
      button(pending[0].confirmationId, 'approve', 'Approve all', true),
      button(pending[0].confirmationId, 'reject', 'Reject all', true),
    );
  }
  if (card.link) elements.push({ tag: 'markdown', content: `Edit in Warden: ${card.link}` });
  const title = pending.length
    ? `Approval needed: ${card.items.length} calls (${pending.length} pending)`
    : `Decided: ${card.items.length} calls`;
  return {
    schema: '2.0',
    config: { update_multi: true },
    header: { title: { tag: 'plain_text', content: oneLine(title) }, template: pending.length ? 'orange' : 'grey' },
    body: { elements },
  };
}
