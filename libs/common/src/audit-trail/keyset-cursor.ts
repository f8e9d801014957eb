import { BadInputError } from '../errors/domain.exception.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[ T][\d:.]+([+-]\d{2}(:?\d{2})?|Z)?$/;

/**
 * An opaque paging cursor: the sort key of the last row returned (its exact timestamp text and its id), so the next
 * page starts right after it whatever was written meanwhile.
 */
export function encodeCursor(ts: string, id: string): string {
  return Buffer.from(JSON.stringify([ts, id])).toString('base64url');
}

export function decodeCursor(cursor: string): { ts: string; id: string } {
  try {
    const [ts, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof ts === 'string' && TIMESTAMP.test(ts) && typeof id === 'string' && /^\d{1,19}$/.test(id))
      return { ts, id };
  } catch {
    /* reported below */
  }
  throw new BadInputError('cursor is not one this API returned (pass next_cursor from the previous page unchanged)');
}
