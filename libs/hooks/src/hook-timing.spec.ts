import { jest } from '@jest/globals';
import { HookChain, HookChainRun } from './hook-chain.js';
import { PRE_TOOL_USE } from './hook-chain-points.js';
import type { ToolCallContext } from './hook-invocation.js';
import { SAMPLE_EVERY, setHookTiming } from './hook-timing.js';
import type { HookResult } from './hook.types.js';
import { Pre, registeredHook } from './testing/registered-hooks.js';
import { toolCallContext } from './testing/tool-call-context.js';

/** Which hooks of which chain runs are timed one by one (hook-timing.ts), seen by what a user reads: durations. */
const hook = (name: string, priority: number, fn: () => HookResult | Promise<HookResult>) =>
  registeredHook(name, priority, new Pre(fn));
const spin = (ms: number): HookResult => {
  const end = performance.now() + ms;
  while (performance.now() < end);
  return {};
};
const noop = (): HookResult => ({});
const syncEmit = (() => undefined) as unknown as ToolCallContext['emit'];

async function durations(chain: HookChain<unknown>): Promise<Record<string, number>> {
  const ctx = toolCallContext({ toolArgs: { n: 0 }, emit: syncEmit });
  const verdict = (await chain.run(ctx, new HookChainRun(ctx.toolArgs, undefined))) as {
    outcomes: Array<{ hook: string; durationMs: number }>;
  };
  return Object.fromEntries(verdict.outcomes.map((o) => [o.hook, o.durationMs]));
}

describe('hook timing: synchronous hooks timed on a sample of chain runs', () => {
  afterEach(() => {
    jest.restoreAllMocks();
    setHookTiming('sampled');
  });

  it('reads the clock at each hook boundary on 1 run in 16 (the first included), at start and end on others', async () => {
    setHookTiming('sampled');
    const chain = new HookChain(
      Array.from({ length: 10 }, (_, i) => hook(`h${i}`, i, noop)),
      PRE_TOOL_USE,
    );
    const reads: number[] = [];
    // A clock that advances 1 µs per read: no run is slow, whatever the machine does meanwhile.
    let clock = 0;
    const now = jest.spyOn(performance, 'now').mockImplementation(() => (clock += 0.001));
    for (let i = 0; i < 2 * SAMPLE_EVERY; i++) {
      const before = now.mock.calls.length;
      await durations(chain);
      reads.push(now.mock.calls.length - before);
    }
    const sampled = reads.flatMap((n, i) => (n > 2 ? [i] : []));
    expect(sampled).toEqual([0, SAMPLE_EVERY]);
    expect(reads[0]).toBe(11);
    expect(reads.filter((n) => n === 2)).toHaveLength(2 * SAMPLE_EVERY - 2);
  });

  it('HOOK_TIMING=every times each hook of every run', async () => {
    setHookTiming('every');
    const chain = new HookChain([hook('a', 1, noop), hook('slow', 2, () => spin(2))], PRE_TOOL_USE);
    for (let i = 0; i < 3; i++) expect((await durations(chain)).slow).toBeGreaterThanOrEqual(2);
  });

  it('a slow synchronous hook on an untimed run reports 0 ms; the runs after it time it and show it', async () => {
    setHookTiming('sampled');
    const chain = new HookChain([hook('fast', 1, noop), hook('slow', 2, () => spin(1))], PRE_TOOL_USE);
    expect((await durations(chain)).slow).toBeGreaterThanOrEqual(1);
    expect(await durations(chain)).toEqual({ fast: 0, slow: 0 });
    for (let i = 0; i < 3; i++) expect((await durations(chain)).slow).toBeGreaterThanOrEqual(1);
  });

  it('on an untimed run, a hook that returns a promise is timed, and every hook after it', async () => {
    setHookTiming('sampled');
    const chain = new HookChain(
      [
        hook('before', 1, noop), // The wait is a spin in a later microtask: a timer may fire early on the clock hooks are timed with.
        hook('waits', 2, () => Promise.resolve().then(() => spin(20))),
        hook('after', 3, () => spin(2)),
      ],
      PRE_TOOL_USE,
    );
    await durations(chain);
    const ms = await durations(chain);
    expect(ms.before).toBe(0);
    expect(ms.waits).toBeGreaterThanOrEqual(20);
    expect(ms.waits).toBeLessThan(200);
    expect(ms.after).toBeGreaterThanOrEqual(2);
  });
});
