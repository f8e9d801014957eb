import { BadInputError } from '@warden/common';

/** The longest window a replay covers, and the most recorded calls it evaluates (a 4xx beyond either). */
export const REPLAY_MAX_DAYS = 31;
export const REPLAY_MAX_CALLS = 100_000;

const DAY_MS = 24 * 3600 * 1000;

/** `from` and `to` (ISO times, from < to, at most REPLAY_MAX_DAYS apart); 400 naming the problem otherwise. */
export function replayWindow(from: string, to: string): { from: Date; to: Date } {
  const start = new Date(from);
  const end = new Date(to);
  if (Number.isNaN(start.getTime())) throw new BadInputError(`from must be an ISO time, got ${JSON.stringify(from)}`);
  if (Number.isNaN(end.getTime())) throw new BadInputError(`to must be an ISO time, got ${JSON.stringify(to)}`);
  if (end <= start) throw new BadInputError('the window is empty: to must be after from');
  const days = (end.getTime() - start.getTime()) / DAY_MS;
  if (days > REPLAY_MAX_DAYS) {
    throw new BadInputError(
      `window too large: ${Math.ceil(days)} days (a replay covers at most ${REPLAY_MAX_DAYS} days)`,
    );
  }
  return { from: start, to: end };
}

/** 400 when the window holds more recorded calls than a replay evaluates. */
export function checkCallCount(count: number): void {
  if (count > REPLAY_MAX_CALLS) {
    throw new BadInputError(
      `window too large: it holds ${count} recorded calls (a replay evaluates at most ${REPLAY_MAX_CALLS}); narrow it`,
    );
  }
}
