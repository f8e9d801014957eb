import { isUuid } from '@warden/common';
import type { DecidedStatus } from '../channel.js';

const json = (v: unknown, indent?: number): string => {
  try {
    // JSON.stringify answers undefined for a function or a symbol, whatever its declared type says.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
    return JSON.stringify(v ?? {}, null, indent) ?? String(v);
  } catch {
    return String(v);
  }
};

/** Who asked, as a card shows it: the name, or the user id when the name is missing or empty. */
export function requesterLabel(by: { userId: string; name?: string | null }): string {
  if (by.name) return by.name;
  return by.userId;
}

/** Args as a person reads them on a card: pretty JSON, capped so a huge payload cannot blow up the message. */
export function prettyArgs(args: Record<string, unknown>, maxChars = 800): string {
  const text = json(args, 2);
  return text.length > maxChars ? `${text.slice(0, maxChars)}\n… (${text.length - maxChars} more characters)` : text;
}

/**
 * One line of user-provided text (a name, a tool, an arg value): line breaks, other control characters and Unicode
 * line separators become spaces, so no string can start a fake "Approved by: CFO" line on a card.
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this removes
export const oneLine = (s: string): string => s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ');

/** What a card shows of the args: the deciding fields in full, then the rest capped, with how much was left out. */
export interface CardArgs {
  /** [name, value as JSON on one line], in the order the policy names them; never truncated. */
  decisive: Array<[string, string]>;
  /** The remaining args as pretty JSON, cut at the cap. */
  rest: string;
  /** Characters of `rest` left out (0 when it all fits). */
  omitted: number;
}

export function cardArgs(
  args: Record<string, unknown> | null | undefined,
  decisiveFields: readonly string[] = [],
  maxChars = 800,
): CardArgs {
  const present = decisiveFields.filter((f) => Object.prototype.hasOwnProperty.call(args ?? {}, f));
  const decisive = present.map((f): [string, string] => [f, oneLine(json(args?.[f]))]);
  const others = Object.fromEntries(Object.entries(args ?? {}).filter(([k]) => !present.includes(k)));
  const text = Object.keys(others).length ? json(others, 2) : '';
  return text.length > maxChars
    ? { decisive, rest: text.slice(0, maxChars), omitted: text.length - maxChars }
    : { decisive, rest: text, omitted: 0 };
}

/** The line under capped args: how much is hidden and where to read all of it. */
export const omittedNote = (omitted: number, link?: string): string =>
  `${omitted} more characters — open in Warden${link ? `: ${link}` : ''}`;

/** "2 distinct approvals needed — 1 of 2 given", shown when the two-person rule applies. */
export const approvalsNote = (n: number | undefined, given = 0): string | null =>
  n && n > 1 ? `${n} distinct approvals needed${given > 0 ? ` — ${given} of ${n} given` : ''}` : null;

export const STATUS_WORDS: Record<DecidedStatus, string> = {
  approved: 'Approved',
  rejected: 'Rejected',
  expired: 'Expired',
};

export const isoMinute = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** What a clicked button's value must name; anything else is refused before the decision service sees it. */
export function parseButtonValue(
  value: unknown,
): { confirmationId: string; decision: 'approve' | 'reject'; all?: boolean } | null {
  let v = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return null;
    }
  }
  if (!v || typeof v !== 'object') return null;
  const { confirmation_id: id, decision, all } = v as Record<string, unknown>;
  if (!isUuid(id)) return null;
  if (decision !== 'approve' && decision !== 'reject') return null;
  return all === true ? { confirmationId: id, decision, all: true } : { confirmationId: id, decision };
}
