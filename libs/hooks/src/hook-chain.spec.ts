import type { RunEventMap } from '@warden/common';
import { HookChain, HookChainRun, type RegisteredHook } from './hook-chain.js';
import { POST_TOOL_USE, PRE_TOOL_USE } from './hook-chain-points.js';
import type { ToolCallContext } from './hook-invocation.js';
import type { HookContext, HookResult } from './hook.types.js';
import { Post, Pre, registeredHook } from './testing/registered-hooks.js';
import { toolCallContext } from './testing/tool-call-context.js';

const hook = registeredHook;

function context(emit: ToolCallContext['emit'] = () => Promise.resolve()): ToolCallContext {
  return toolCallContext({ emit });
}

const pre = (hooks: RegisteredHook[], ctx = context()) =>
  new HookChain(hooks, PRE_TOOL_USE).run(ctx, new HookChainRun(ctx.toolArgs, undefined));
const never = () => new Promise<HookResult>(() => undefined);

/** Counts the timers armed while `fn` runs. */
async function timersArmedDuring(fn: () => Promise<unknown>): Promise<number> {
  const original = globalThis.setTimeout;
  let armed = 0;
  globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
    armed++;
    return original(...args);
  }) as typeof setTimeout;
  try {
    await fn();
  } finally {
    globalThis.setTimeout = original;
  }
  return armed;
}

describe('HookChain (the one loop every hook point runs)', () => {
  it('runs by ascending priority, ties by name, runsLast hooks after all others', async () => {
    const ran: string[] = [];
    const track = (name: string) =>
      new Pre(() => {
        ran.push(name);
        return {};
      });
    const chain = new HookChain(
      [
        hook('gate', 0, track('gate'), { runsLast: true }),
        hook('zeta', 20, track('zeta')),
        hook('beta', 10, track('beta')),
        hook('alpha', 10, track('alpha')),
      ],
      PRE_TOOL_USE,
    );
    expect(chain.hooks.map((h) => h.name)).toEqual(['alpha', 'beta', 'zeta', 'gate']);
    const ctx = context();
    const verdict = await chain.run(ctx, new HookChainRun(ctx.toolArgs, undefined));
    expect(ran).toEqual(['alpha', 'beta', 'zeta', 'gate']);
    expect(verdict.outcomes.map((o) => o.hook)).toEqual(['alpha', 'beta', 'zeta', 'gate']);
  });

  it('PreToolUse runs in bands: agent and auto-attached hooks, then org hooks, then runsLast; priority inside each band', () => {
    const noop = new Pre(() => ({}));
    const chain = new HookChain(
      [
        hook('gate', 0, noop, { runsLast: true }),
        { ...hook('org-policy', 10, noop), origin: 'org' as const },
        { ...hook('agent-late', 60, noop), origin: 'agent' as const },
        { ...hook('guard', 5, noop), origin: 'auto' as const },
        { ...hook('org-early', 1, noop), origin: 'org' as const },
      ],
      PRE_TOOL_USE,
    );
    expect(chain.hooks.map((h) => h.name)).toEqual(['guard', 'agent-late', 'org-early', 'org-policy', 'gate']);
    const post = new HookChain(
      [
        { ...hook('org-post', 1, new Post(() => ({}))), origin: 'org' as const },
        { ...hook('agent-post', 2, new Post(() => ({}))), origin: 'agent' as const },
      ],
      POST_TOOL_USE,
    );
    expect(post.hooks.map((h) => h.name)).toEqual(['org-post', 'agent-post']);
  });

  it('carries each rewrite forward: every hook sees what the hooks before it left, the caller gets the last', async () => {
    const seen: unknown[] = [];
    const bump = new Pre((ctx) => {
      seen.push(ctx.toolArgs.n ?? 0);
      return { modifiedArgs: { ...ctx.toolArgs, n: Number(ctx.toolArgs.n ?? 0) + 1 } };
    });
    const verdict = await pre([hook('a', 1, bump), hook('b', 2, bump), hook('c', 3, bump)]);
    expect(seen).toEqual([0, 1, 2]);
    expect(verdict).toMatchObject({ allow: true, args: { id: 'PO-1', n: 3 } });

    const wrap = (tag: string) => new Post((ctx) => ({ modifiedResult: `<${tag}>${ctx.toolResult}</${tag}>` }));
    const ctx = context();
    const post = await new HookChain([hook('outer', 2, wrap('o')), hook('inner', 1, wrap('i'))], POST_TOOL_USE).run(
      ctx,
      new HookChainRun(ctx.toolArgs, 'x'),
    );
    expect(post.result).toBe('<o><i>x</i></o>');
  });

  it('stops at the first block: nothing after it runs, and its outcome and event come last', async () => {
    const events: unknown[] = [];
    let laterRan = false;
    const verdict = await pre(
      [
        hook('look', 1, new Pre(() => ({ sideEffects: ['looked'] }))),
        hook('guard', 2, new Pre(() => ({ allow: false, error: 'over limit' }))),
        hook(
          'later',
          3,
          new Pre(() => {
            laterRan = true;
            return {};
          }),
        ),
      ],
      context((_type, data) => {
        const d = data as RunEventMap['hook'];
        events.push([d.hook, d.outcome]);
        return Promise.resolve();
      }),
    );
    expect(laterRan).toBe(false);
    expect(verdict).toMatchObject({ allow: false, blockedBy: 'guard', error: 'over limit' });
    expect(events).toEqual([
      ['look', 'allow'],
      ['guard', 'block'],
    ]);
  });

  it('fails closed when a hook passes its timeout, and aborts the signal it was given', async () => {
    let signal: AbortSignal | undefined;
    let laterRan = false;
    const verdict = await pre([
      hook(
        'slow',
        1,
        new Pre((ctx) => {
          signal = ctx.signal;
          return never();
        }),
        { timeoutMs: 20 },
      ),
      hook(
        'later',
        2,
        new Pre(() => {
          laterRan = true;
          return {};
        }),
      ),
    ]);
    expect(verdict).toMatchObject({
      allow: false,
      blockedBy: 'slow',
      error: "hook failed: hook 'slow' did not finish within 20 ms",
    });
    expect(signal?.aborted).toBe(true);
    expect(laterRan).toBe(false);
  });

  it("with onError 'allow' a timed-out hook is recorded and the chain goes on; it never sees the later hooks' args", async () => {
    let slowCtx: HookContext | undefined;
    const verdict = await pre([
      hook(
        'slow',
        1,
        new Pre((ctx) => {
          slowCtx = ctx;
          return never();
        }),
        { timeoutMs: 20, onError: 'allow' },
      ),
      hook('rewrite', 2, new Pre(() => ({ modifiedArgs: { id: 'PO-2' } }))),
      hook('check', 3, new Pre((ctx) => (ctx.toolArgs.id === 'PO-2' ? {} : { allow: false }))),
    ]);
    expect(verdict).toMatchObject({ allow: true, args: { id: 'PO-2' } });
    expect(verdict.outcomes.map((o) => [o.hook, o.outcome])).toEqual([
      ['slow', 'error'],
      ['rewrite', 'rewrite'],
      ['check', 'allow'],
    ]);
    expect(slowCtx!.toolArgs).toEqual({ id: 'PO-1' });
    expect(slowCtx!.signal.aborted).toBe(true);
  });

  it('arms no timer for hooks that return synchronously, one for a hook that returns a promise', async () => {
    const sync = [hook('a', 1, new Pre(() => ({}))), hook('b', 2, new Pre(() => ({ modifiedArgs: { id: 'PO-3' } })))];
    expect(
      await timersArmedDuring(() =>
        pre(
          sync,
          context(() => undefined as unknown as Promise<void>),
        ),
      ),
    ).toBe(0);
    const mixed = [...sync, hook('c', 3, new Pre(() => Promise.resolve({})))];
    expect(
      await timersArmedDuring(() =>
        pre(
          mixed,
          context(() => undefined as unknown as Promise<void>),
        ),
      ),
    ).toBe(1);
  });

  it("emits each outcome's event, and waits for it, before the next hook runs", async () => {
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const ctx = context(async (_type, data) => {
      const d = data as RunEventMap['hook'];
      order.push(`event:${d.hook}`);
      if (d.hook === 'one') await gate;
    });
    const running = pre(
      [
        hook(
          'one',
          1,
          new Pre(() => {
            order.push('run:one');
            return {};
          }),
        ),
        hook(
          'two',
          2,
          new Pre(() => {
            order.push('run:two');
            return {};
          }),
        ),
      ],
      ctx,
    );
    await Promise.resolve();
    expect(order).toEqual(['run:one', 'event:one']);
    release();
    await running;
    expect(order).toEqual(['run:one', 'event:one', 'run:two', 'event:two']);
  });
});
