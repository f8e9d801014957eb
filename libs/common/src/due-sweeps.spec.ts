import { jest } from '@jest/globals';
import { DueSweeps } from './due-sweeps.js';

const GAP = 1000;

/** A DueSweeps whose sweeps answer `next()` and are recorded with the (fake) time they started at. */
function recordingSweeps(next: () => number | null | Error = () => null) {
  const sweeps: number[] = [];
  const due = new DueSweeps({
    minGapMs: GAP,
    sweep: () => {
      sweeps.push(Date.now());
      const answer = next();
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
  });
  return { due, sweeps };
}

beforeEach(() => {
  jest.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
});

afterEach(() => {
  jest.useRealTimers();
});

describe('DueSweeps', () => {
  it('with nothing due, no timer is armed at all: an idle instance sweeps once and then never', async () => {
    const { due, sweeps } = recordingSweeps();
    due.dueIn(0);
    await jest.advanceTimersByTimeAsync(60_000);
    expect(sweeps).toHaveLength(1);
    expect(due.nextSweepAt).toBe(Infinity);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('sweeps again when the last sweep said something is due, not before', async () => {
    const answers = [5000, null];
    const { due, sweeps } = recordingSweeps(() => answers.shift() ?? null);
    const start = Date.now();
    due.dueIn(0);
    await jest.advanceTimersByTimeAsync(4000);
    expect(sweeps).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(2000);
    expect(sweeps.map((at) => at - start)).toEqual([50, 5050 + 50]);
    expect(due.nextSweepAt).toBe(Infinity);
  });

  it('the earliest request wins; sweeps are never closer than the gap, even when something stays due', async () => {
    const { due, sweeps } = recordingSweeps(() => 0);
    const start = Date.now();
    due.dueIn(30_000);
    due.dueIn(0);
    await jest.advanceTimersByTimeAsync(3500);
    expect(sweeps.map((at) => at - start)).toEqual([50, 1100, 2150, 3200]);
    due.stop();
  });

  it('a request during a sweep gets a sweep after it (that sweep may have read the state before the change)', async () => {
    let during: (() => void) | undefined;
    const { due, sweeps } = recordingSweeps(() => {
      during?.();
      during = undefined;
      return null;
    });
    during = () => due.dueIn(0);
    due.dueIn(0);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(sweeps).toHaveLength(2);
  });

  it('a failed sweep is retried one gap later', async () => {
    const answers: Array<number | null | Error> = [new Error('connection lost'), null];
    const { due, sweeps } = recordingSweeps(() => answers.shift() ?? null);
    due.dueIn(0);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(sweeps).toHaveLength(2);
    expect(sweeps[1] - sweeps[0]).toBeGreaterThanOrEqual(GAP);
  });

  it('a due time beyond the longest timer (~24.8 days) is waited for, not swept early', async () => {
    const { due, sweeps } = recordingSweeps();
    due.dueIn(40 * 86_400_000);
    await jest.advanceTimersByTimeAsync(30 * 86_400_000);
    expect(sweeps).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(11 * 86_400_000);
    expect(sweeps).toHaveLength(1);
  });
});
