import { createHash, timingSafeEqual } from 'node:crypto';

/** Platforms sign a timestamp; anything older (or further in the future) than this is a replay. */
export const REPLAY_WINDOW_S = 300;

/**
 * Constant-time string equality. Both sides are hashed first so that neither the content nor the length of the
 * expected value leaks through timing.
 */
export function safeEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b) && given.length === expected.length;
}

/** Whether a platform timestamp in seconds is inside the replay window around `nowMs`. */
export function isFresh(timestampS: number, nowMs = Date.now(), windowS = REPLAY_WINDOW_S): boolean {
  return Number.isFinite(timestampS) && Math.abs(nowMs / 1000 - timestampS) <= windowS;
}

export function headerOf(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}
