import { jest } from '@jest/globals';
import { RUN_PARKED, type RunParkedEvent } from './live-run.js';
import { ParkedDeadlines } from './parked-deadlines.js';
import { ParkedRunResumer } from './parked-run-resumer.js';
import type { RunExecutor } from './run-executor.js';
import type { RunRecovery } from './run-recovery.js';
import type { ParkedClaim } from './run-leases.js';
import type { RunStore } from './run-store.js';

const SECOND = 1000;
const DAY = 86_400 * SECOND;
/** setTimeout's largest delay (2^31-1 ms, ~24.8 days); fake timers, like Node, fire a longer one after 1 ms. */
const MAX_TIMER_MS = 2_147_483_647;

/** An ISO deadline this far from the (fake) clock's now. */
const inMs = (ms: number): string => new Date(Date.now() + ms).toISOString();

/** The claims made through `due`, each with the (fake) time it was made at. */
function recordingDeadlines() {
  const claims: Array<{ ids: string[]; at: number }> = [];
  const deadlines = new ParkedDeadlines((ids) => claims.push({ ids, at: Date.now() }));
  return { deadlines, claims };
}

beforeEach(() => {
  jest.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
});

afterEach(() => {
  jest.useRealTimers();
});

describe('ParkedDeadlines', () => {
  it('claims a parked run at its deadline, not before, with one wake-up (no polling)', () => {
    const { deadlines, claims } = recordingDeadlines();
    const deadline = Date.parse(inMs(10 * SECOND));
    deadlines.watch('c1', inMs(10 * SECOND));

    // The first wake-up is the claim, a little after the deadline (the database's clock must have passed it too).
    jest.advanceTimersToNextTimer();
    expect(claims).toEqual([{ ids: ['c1'], at: expect.any(Number) }]);
    expect(claims[0].at).toBeGreaterThanOrEqual(deadline);
    expect(claims[0].at).toBeLessThan(deadline + SECOND);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('keeps one timer for several runs, re-armed to the earliest deadline, and claims each at its own, in order', () => {
    const { deadlines, claims } = recordingDeadlines();
    const start = Date.now();
    // Watched latest first, so that each later watch must bring the one timer forward.
    deadlines.watch('late', inMs(30 * SECOND));
    deadlines.watch('middle', inMs(20 * SECOND));
    deadlines.watch('early', inMs(10 * SECOND));
    deadlines.watch('middle-too', inMs(20 * SECOND));
    expect(jest.getTimerCount()).toBe(1);

    jest.advanceTimersByTime(60 * SECOND);
    expect(claims.map(({ ids, at }) => [ids, Math.floor((at - start) / SECOND)])).toEqual([
      [['early'], 10],
      [['middle', 'middle-too'], 20], // same deadline: one claim for both
      [['late'], 30],
    ]);
  });

  it('a deadline watched while the timer waits for a later one is still claimed on time', () => {
    const { deadlines, claims } = recordingDeadlines();
    deadlines.watch('late', inMs(60 * SECOND));
    jest.advanceTimersByTime(5 * SECOND);
    deadlines.watch('early', inMs(5 * SECOND));

    jest.advanceTimersByTime(5 * SECOND + SECOND / 2);
    expect(claims.map((c) => c.ids)).toEqual([['early']]);
    expect(jest.getTimerCount()).toBe(1);
  });

  it('does not claim a run whose approval was decided before its deadline (forget)', () => {
    const { deadlines, claims } = recordingDeadlines();
    deadlines.watch('decided', inMs(10 * SECOND));
    deadlines.watch('pending', inMs(10 * SECOND));
    deadlines.forget('decided');

    jest.advanceTimersByTime(60 * SECOND);
    expect(claims.map((c) => c.ids)).toEqual([['pending']]);
  });

  it('claims at once a run whose deadline has already passed', () => {
    const { deadlines, claims } = recordingDeadlines();
    deadlines.watch('overdue', inMs(-5 * SECOND));

    jest.advanceTimersByTime(SECOND / 2);
    expect(claims.map((c) => c.ids)).toEqual([['overdue']]);
  });

  it('waits out a deadline beyond setTimeout’s ~24.8-day limit instead of firing at once', () => {
    const { deadlines, claims } = recordingDeadlines();
    const start = Date.now();
    const deadline = Date.parse(inMs(40 * DAY));
    deadlines.watch('far', inMs(40 * DAY));

    // Stepped timer by timer: an overflowed delay would fire after 1 ms, and fire again, and again.
    jest.advanceTimersToNextTimer();
    expect(Date.now() - start).toBeGreaterThanOrEqual(MAX_TIMER_MS - SECOND);
    expect(claims).toEqual([]);

    for (let step = 0; step < 3 && claims.length === 0; step++) jest.advanceTimersToNextTimer();
    expect(claims.map((c) => c.ids)).toEqual([['far']]);
    expect(claims[0].at).toBeGreaterThanOrEqual(deadline);
    expect(claims[0].at).toBeLessThan(deadline + SECOND);
  });

  it('after stop: no claim at a deadline, and no timer left', () => {
    const { deadlines, claims } = recordingDeadlines();
    deadlines.watch('c1', inMs(10 * SECOND));
    deadlines.watch('c2', inMs(40 * DAY));
    deadlines.stop();

    expect(jest.getTimerCount()).toBe(0);
    jest.advanceTimersByTime(41 * DAY);
    expect(claims).toEqual([]);
  });

  it('its timer does not keep the process alive (real timers)', () => {
    jest.useRealTimers();
    const timeouts = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timeouts();
    const deadlines = new ParkedDeadlines(() => undefined);
    deadlines.watch('c1', new Date(Date.now() + 60 * SECOND).toISOString());
    try {
      expect(timeouts()).toBe(before);
    } finally {
      deadlines.stop();
    }
  });
});

describe('ParkedRunResumer and the deadlines of the runs it parked', () => {
  function resumerWithFakes() {
    const claim: ParkedClaim = { id: 'run-1', epoch: 2 };
    const claimParked = jest.fn((_ids: string[]): Promise<ParkedClaim[]> => Promise.resolve([claim]));
    const resumeClaimed = jest.fn((_claim: ParkedClaim): Promise<void> => Promise.resolve());
    const store = { leases: { claimParked } } as unknown as RunStore;
    const executor = { isStopping: false, resumeClaimed } as unknown as RunExecutor;
    const afterFailedClaim = jest.fn();
    const recovery = { afterFailedClaim } as unknown as RunRecovery;
    const resumer = new ParkedRunResumer(store, executor, recovery);
    const parked = (confirmationId: string, expiresAt?: string): void =>
      resumer.onParked({
        runId: claim.id,
        approvals: [{ confirmationId, ...(expiresAt ? { expiresAt } : {}) }],
      } satisfies RunParkedEvent);
    return { resumer, parked, claimParked, resumeClaimed, claim, afterFailedClaim };
  }

  it(`claims a run parked (${RUN_PARKED}) at its approval's deadline and resumes it; not before`, async () => {
    const { resumer, parked, claimParked, resumeClaimed, claim } = resumerWithFakes();
    parked('c1', inMs(10 * SECOND));

    await jest.advanceTimersByTimeAsync(10 * SECOND - 1);
    expect(claimParked).not.toHaveBeenCalled();

    await jest.advanceTimersByTimeAsync(SECOND);
    expect(claimParked.mock.calls).toEqual([[['c1']]]);
    expect(resumeClaimed.mock.calls).toEqual([[claim]]);
    resumer.onModuleDestroy();
  });

  it('a decision taken here before the deadline claims the run once; the deadline does not claim it again', async () => {
    const { resumer, parked, claimParked } = resumerWithFakes();
    parked('c1', inMs(10 * SECOND));

    await jest.advanceTimersByTimeAsync(3 * SECOND);
    resumer.onSettled({ id: 'c1', status: 'approved' });
    await jest.advanceTimersByTimeAsync(60 * SECOND);
    expect(claimParked.mock.calls).toEqual([[['c1']]]);
    resumer.onModuleDestroy();
  });

  it('a decision heard by NOTIFY (another instance took it) also claims once, and not again at the deadline', async () => {
    const { resumer, parked, claimParked } = resumerWithFakes();
    parked('c1', inMs(10 * SECOND));

    resumer.onNotified('c1');
    await jest.advanceTimersByTimeAsync(60 * SECOND);
    expect(claimParked.mock.calls).toEqual([[['c1']]]);
    resumer.onModuleDestroy();
  });

  it('a decision arms no recovery sweep; a claim that fails (a database error) does, resuming nothing', async () => {
    const { resumer, claimParked, resumeClaimed, afterFailedClaim } = resumerWithFakes();
    resumer.onSettled({ id: 'c1', status: 'approved' });
    await jest.advanceTimersByTimeAsync(0);
    expect(afterFailedClaim).not.toHaveBeenCalled();

    claimParked.mockRejectedValueOnce(new Error('connection reset'));
    resumer.onNotified('c2');
    await jest.advanceTimersByTimeAsync(0);
    expect(afterFailedClaim).toHaveBeenCalledTimes(1);
    expect(resumeClaimed).toHaveBeenCalledTimes(1); // c1's claim only
    resumer.onModuleDestroy();
  });

  it('an approval without a deadline is left to its decision (no timer)', async () => {
    const { resumer, parked, claimParked } = resumerWithFakes();
    parked('c1');

    expect(jest.getTimerCount()).toBe(0);
    await jest.advanceTimersByTimeAsync(60 * DAY);
    expect(claimParked).not.toHaveBeenCalled();
    resumer.onModuleDestroy();
  });

  it('after shutdown (onModuleDestroy) a deadline claims nothing', async () => {
    const { resumer, parked, claimParked } = resumerWithFakes();
    parked('c1', inMs(10 * SECOND));
    resumer.onModuleDestroy();

    expect(jest.getTimerCount()).toBe(0);
    await jest.advanceTimersByTimeAsync(60 * SECOND);
    expect(claimParked).not.toHaveBeenCalled();
  });
});
