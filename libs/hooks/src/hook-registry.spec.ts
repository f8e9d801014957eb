import type { RunEventMap } from '@warden/common';
import { blockedObservation, HookRegistry, type ToolCallContext } from './hook-registry.js';
import { PostToolUseHook, PreToolUseHook, type HookContext, type HookResult } from './hook.types.js';
import { Post, Pre, registeredHook, Start, type HookFn } from './testing/registered-hooks.js';
import { toolCallContext } from './testing/tool-call-context.js';

const hook = registeredHook;

function context(events: Array<[string, Record<string, unknown>]> = []): ToolCallContext {
  return toolCallContext({
    emit: (type, data) => {
      events.push([type, data]);
      return Promise.resolve();
    },
  });
}

describe('HookRegistry', () => {
  it('runs hooks by ascending priority, ties by name, chains arg rewrites to the tool, then decides again on them', async () => {
    const seen: string[] = [];
    const tag =
      (label: string): HookFn =>
      (ctx) => {
        seen.push(label);
        return {
          modifiedArgs: { ...ctx.toolArgs, trail: `${(ctx.toolArgs.trail as string | undefined) ?? ''}${label}` },
        };
      };
    const registry = new HookRegistry([
      hook('zeta', 20, new Pre(tag('z'))),
      hook('beta', 10, new Pre(tag('b'))),
      hook('alpha', 10, new Pre(tag('a'))),
    ]);
    const verdict = await registry.runPreToolUse(context());
    // The decide pass: alpha and beta saw the args before zeta's rewrite, so they decide again on the final args;
    // they are this call's transforms, so what they would make of the final args is not applied.
    expect(seen).toEqual(['a', 'b', 'z', 'a', 'b']);
    expect(verdict).toMatchObject({ allow: true, args: { id: 'PO-1', trail: 'abz' } });
    expect(verdict.outcomes.map((o) => [o.hook, o.outcome])).toEqual([
      ['alpha', 'rewrite'],
      ['beta', 'rewrite'],
      ['zeta', 'rewrite'],
      ['alpha', 'allow'],
      ['beta', 'allow'],
    ]);
  });

  it('chains result rewrites: [B][A]data[/A][/B]', async () => {
    const wrap =
      (tag: string): HookFn =>
      (ctx) => ({ modifiedResult: `[${tag}]${ctx.toolResult}[/${tag}]` });
    const registry = new HookRegistry([hook('b', 2, new Post(wrap('B'))), hook('a', 1, new Post(wrap('A')))]);
    const { result } = await registry.runPostToolUse({ ...context(), toolResult: 'data' });
    expect(result).toBe('[B][A]data[/A][/B]');
  });

  it('stops at the first block: later hooks do not run, and the observation names the hook', async () => {
    let laterRan = false;
    const events: Array<[string, Record<string, unknown>]> = [];
    const registry = new HookRegistry([
      hook('first', 1, new Pre(() => ({ sideEffects: ['looked'] }))),
      hook('guard', 2, new Pre(() => ({ allow: false, error: 'amount over limit' }))),
      hook(
        'later',
        3,
        new Pre(() => {
          laterRan = true;
          return {};
        }),
      ),
    ]);
    const verdict = await registry.runPreToolUse(context(events));
    expect(laterRan).toBe(false);
    expect(verdict).toMatchObject({ allow: false, blockedBy: 'guard', error: 'amount over limit' });
    expect(blockedObservation(verdict.blockedBy!, verdict.error!)).toBe(
      'Tool call blocked by guard: amount over limit',
    );
    expect(events.map(([type, data]) => [type, data.hook, data.outcome])).toEqual([
      ['hook', 'first', 'allow'],
      ['hook', 'guard', 'block'],
    ]);
    expect(events[0][1]).toMatchObject({ call_id: 'call-1', point: 'PreToolUse', side_effects: ['looked'] });
    expect(typeof events[0][1].duration_ms).toBe('number');
  });

  it('gives a block without a reason the default text', async () => {
    const registry = new HookRegistry([hook('quiet', 1, new Pre(() => ({ allow: false })))]);
    expect((await registry.runPreToolUse(context())).error).toBe("Blocked by hook 'quiet'");
  });

  it('fails closed: a throwing PreToolUse hook blocks and records the error', async () => {
    const registry = new HookRegistry([
      hook(
        'broken',
        1,
        new Pre(() => {
          throw new Error('db down');
        }),
      ),
      hook('after', 2, new Pre(() => ({}))),
    ]);
    const verdict = await registry.runPreToolUse(context());
    expect(verdict).toMatchObject({ allow: false, blockedBy: 'broken' });
    expect(verdict.error).toContain('db down');
    expect(verdict.outcomes).toEqual([
      expect.objectContaining({ hook: 'broken', outcome: 'error', detail: 'db down' }),
    ]);
  });

  it("with onError 'allow' a throwing hook is recorded and the chain goes on", async () => {
    const registry = new HookRegistry([
      hook('lenient', 1, new Pre(() => Promise.reject(new Error('flaky'))), { onError: 'allow' }),
      hook('after', 2, new Pre(() => ({ modifiedArgs: { id: 'PO-2' } }))),
    ]);
    const verdict = await registry.runPreToolUse(context());
    expect(verdict).toMatchObject({ allow: true, args: { id: 'PO-2' } });
    // It failed on the model's args and again on the final ones (the decide pass): recorded both times.
    expect(verdict.outcomes.map((o) => o.outcome)).toEqual(['error', 'rewrite', 'error']);
  });

  it('blocks a hook past its timeout and aborts its signal', async () => {
    let aborted = false;
    const slow = new Pre(
      (ctx) =>
        new Promise<HookResult>((resolve) => {
          ctx.signal.addEventListener('abort', () => {
            aborted = true;
          });
          setTimeout(() => resolve({}), 2000);
        }),
    );
    const registry = new HookRegistry([hook('slow', 1, slow, { timeoutMs: 50 })]);
    const started = Date.now();
    const verdict = await registry.runPreToolUse(context());
    expect(Date.now() - started).toBeLessThan(1000);
    expect(verdict).toMatchObject({ allow: false, blockedBy: 'slow' });
    expect(verdict.error).toMatch(/did not finish within 50 ms/);
    expect(aborted).toBe(true);
  });

  it('leaves the observation unchanged when a PostToolUse hook throws, and records it', async () => {
    const registry = new HookRegistry([
      hook('a', 1, new Post((ctx) => ({ modifiedResult: `${ctx.toolResult}!` }))),
      hook(
        'boom',
        2,
        new Post(() => {
          throw new Error('parser crashed');
        }),
      ),
      hook('c', 3, new Post((ctx) => ({ modifiedResult: `${ctx.toolResult}?` }))),
    ]);
    const { result, outcomes } = await registry.runPostToolUse({ ...context(), toolResult: 'ok' });
    expect(result).toBe('ok!?');
    expect(outcomes.map((o) => [o.hook, o.outcome, o.detail])).toEqual([
      ['a', 'rewrite', undefined],
      ['boom', 'error', 'parser crashed'],
      ['c', 'rewrite', undefined],
    ]);
  });

  it('collects SessionStart context and records a failing SessionStart hook without stopping', async () => {
    const registry = new HookRegistry([
      hook('policy', 1, new Start(() => ({ additionalContext: 'Payments over 10k need a PO.' }))),
      hook(
        'broken',
        2,
        new Start(() => {
          throw new Error('no calendar');
        }),
      ),
      hook('team', 3, new Start(() => Promise.resolve({ additionalContext: 'You work for finance.' }))),
    ]);
    const { additionalContext, outcomes } = await registry.runSessionStart({
      ...context(),
      toolName: '',
      toolArgs: {},
    });
    expect(additionalContext).toEqual(['Payments over 10k need a PO.', 'You work for finance.']);
    expect(outcomes.map((o) => o.outcome)).toEqual(['allow', 'error', 'allow']);
  });

  it('skips hooks whose shouldTrigger is false, recording nothing for them', async () => {
    class OnlyDeletes extends PreToolUseHook {
      override shouldTrigger(ctx: HookContext) {
        return ctx.toolName.includes('delete');
      }
      execute(): HookResult {
        return { allow: false };
      }
    }
    const registry = new HookRegistry([hook('deletes', 1, new OnlyDeletes())]);
    const verdict = await registry.runPreToolUse(context());
    expect(verdict).toMatchObject({ allow: true, outcomes: [] });
  });

  it('emits each hook event before the next hook starts', async () => {
    const order: string[] = [];
    const ctx = context();
    ctx.emit = async (_type, data) => {
      await new Promise((r) => setTimeout(r, 5));
      order.push(`event:${(data as RunEventMap['hook']).hook}`);
    };
    const registry = new HookRegistry([
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
    ]);
    await registry.runPreToolUse(ctx);
    expect(order).toEqual(['run:one', 'event:one', 'run:two', 'event:two']);
  });

  it('tells PostToolUse hooks with onBlocked about a blocked call', async () => {
    const blockedCalls: string[] = [];
    class Audit extends PostToolUseHook {
      execute(): HookResult {
        return {};
      }
      onBlocked(_ctx: HookContext, blocked: { blockedBy: string; error: string }) {
        blockedCalls.push(`${blocked.blockedBy}: ${blocked.error}`);
      }
    }
    const registry = new HookRegistry([hook('audit', 1000, new Audit()), hook('plain', 1, new Post(() => ({})))]);
    const outcomes = await registry.runBlocked(context(), { blockedBy: 'guard', error: 'no' });
    expect(blockedCalls).toEqual(['guard: no']);
    expect(outcomes.map((o) => o.hook)).toEqual(['audit']);
  });

  it('reports what would need a confirmation in a dry run and lists its entries', async () => {
    const registry = new HookRegistry([
      hook('gate', 10, new Pre((ctx) => (ctx.metadata.dryRun ? { wouldRequireConfirmation: true } : {}))),
      hook('audit', 1000, new Post(() => ({}))),
    ]);
    const verdict = await registry.runPreToolUse({ ...context(), metadata: { dryRun: true } });
    expect(verdict).toMatchObject({ allow: true, wouldRequireConfirmation: true });
    expect(verdict.outcomes[0].outcome).toBe('would_require_confirmation');
    expect(registry.entries()).toEqual([
      { name: 'gate', point: 'PreToolUse', priority: 10, source: 'class', autoAttached: false },
      { name: 'audit', point: 'PostToolUse', priority: 1000, source: 'class', autoAttached: false },
    ]);
    expect(HookRegistry.empty().entries()).toEqual([]);
  });
});
