import type { ApprovalCard } from '../channel.js';
import { approvalsNote, cardArgs, isoMinute, omittedNote, oneLine, requesterLabel } from '../shared/card-text.js';

/** WeCom shows about this much of `sub_title_text`; the deciding fields go first so they are never the part cut. */
const SUB_TITLE_MAX = 400;

/**
 * The `template_card` of an approval (button_interaction). WeCom renders plain text, so every user-provided string is
 * flattened to one line (no fake lines); the fields that decide open the text and also get their own rows.
 */
export function wecomApprovalCard(card: ApprovalCard): Record<string, unknown> {
  const requester = oneLine(requesterLabel(card.requestedBy));
  const decisiveLines = cardArgs(card.args, card.decisiveFields, 0).decisive.map(([k, v]) => `${oneLine(k)}: ${v}`);
  const head = decisiveLines.join('\n');
  const room = Math.max(0, SUB_TITLE_MAX - head.length - 80);
  const args = cardArgs(card.args, card.decisiveFields, room);
  const rest = args.rest ? `${head ? '\n' : ''}${args.rest}` : '';
  const note = args.omitted ? `\n${omittedNote(args.omitted, card.link)}` : '';
  const needed = approvalsNote(card.approvalsRequired, card.approvalsGiven);
  return {
    card_type: 'button_interaction',
    main_title: { title: 'Approval needed', desc: oneLine(`${card.tool} (agent ${card.agentName})`) },
    sub_title_text: `${head}${rest}${note}`,
    horizontal_content_list: [
      ...args.decisive.slice(0, 3).map(([k, v]) => ({ keyname: oneLine(k), value: v })),
      { keyname: 'Requested by', value: requester },
      { keyname: 'Approvers', value: oneLine(card.approverScope) + (needed ? ` (${needed})` : '') },
      { keyname: 'Expires', value: isoMinute(card.expiresAt) },
    ],
    ...(card.link ? { jump_list: [{ type: 1, title: 'Open in Warden', url: card.link }] } : {}),
    // task_id must be unique per card; the confirmation id is.
    task_id: card.confirmationId,
    button_list: [
      { text: 'Approve', style: 1, key: `approve:${card.confirmationId}` },
      { text: 'Reject', style: 2, key: `reject:${card.confirmationId}` },
    ],
  };
}
