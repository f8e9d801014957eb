import type { ParsedCallback } from '../channel.js';

/** A callback that failed verification: a 4xx naming the reason (nothing secret in it), nothing changes. */
export const rejected = (status: number, reason: string): ParsedCallback => ({
  kind: 'rejected',
  reason,
  reply: { status, body: { statusCode: status, error: 'Callback rejected', message: reason } },
});
