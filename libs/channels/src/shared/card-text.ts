import { isUuid } from '@warden/common';
import type { DecidedStatus } from '../channel.js';

/** Args as a person reads them on a card: pretty JSON, capped so a huge payload cannot blow up the message. */
export function prettyArgs(args: Record<string, unknown>, maxChars = 800): string {
  let text: string;
  try {
    text = JSON.stringify(args ?? {}, null, 2);
  } catch {
    text = String(args);
  }
  return text.length > maxChars ? `${text.slice(0, maxChars)}\n… (${text.length - maxChars} more characters)` : text;
}

export const STATUS_WORDS: Record<DecidedStatus, string> = {
  approved: 'Approved',
  rejected: 'Rejected',
  expired: 'Expired',
};

export const isoMinute = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** What a clicked button's value must name; anything else is refused before the decision service sees it. */
export function parseButtonValue(value: unknown): { confirmationId: string; decision: 'approve' | 'reject' } | null {
  let v = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return null;
    }
  }
  if (!v || typeof v !== 'object') return null;
  const { confirmation_id: id, decision } = v as Record<string, unknown>;
  if (!isUuid(id)) return null;
  if (decision !== 'approve' && decision !== 'reject') return null;
  return { confirmationId: id, decision };
}

