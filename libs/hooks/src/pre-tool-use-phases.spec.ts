import { HookRegistry } from './hook-registry.js';
import type { HookContext, HookResult, RegisteredHook } from './index.js';
import { DECIDED_ON_FINAL_ARGS, FINAL_ARGS_CHANGED } from './pre-tool-use-phases.js';
import { Pre, registeredHook } from './testing/registered-hooks.js';
import { toolCallContext } from './testing/tool-call-context.js';

const amountOf = (ctx: HookContext) => Number(ctx.toolArgs.amount);
const double = () => new Pre((ctx) => ({ modifiedArgs: { ...ctx.toolArgs, amount: amountOf(ctx) * 2 } }));
const blockOver = (max: number) =>
  new Pre((ctx) => (amountOf(ctx) > max ? { allow: false, error: `over ${max}` } : {}));
const askOver = (max: number) => new Pre((ctx): HookResult => (amountOf(ctx) > max ? { ask: `over ${max}` } : {}));
const capAt = (max: number) =>
  new Pre((ctx): HookResult => (amountOf(ctx) > max ? { modifiedArgs: { ...ctx.toolArgs, amount: max } } : {}));
const org = (h: RegisteredHook): RegisteredHook => ({ ...h, origin: 'org' });
const call = (amount: number) => toolCallContext({ toolArgs: { id: 'PO-1', amount } });

/** #28 "transform, then decide" (docs/authorization.md "Phases"): the unit view of PreToolUsePhases. */
describe('PreToolUse phases: transform, decide on the final args, gate', () => {
  it('a deny placed before a rewriter of its band decides again on the rewritten args, and blocks', async () => {
    const registry = new HookRegistry([
      registeredHook('deny', 10, blockOver(50_000)),
      registeredHook('double', 20, double()),
    ]);
    const verdict = await registry.runPreToolUse(call(40_000));
    expect(verdict).toMatchObject({ allow: false, blockedBy: 'deny', error: 'over 50000', args: { amount: 80_000 } });
    expect(verdict.outcomes.map((o) => [o.hook, o.outcome, o.detail])).toEqual([
      ['deny', 'allow', undefined],
      ['double', 'rewrite', undefined],
      ['deny', 'block', 'over 50000'],
    ]);
    expect((await registry.runPreToolUse(call(20_000))).outcomes.at(-1)).toMatchObject({
      hook: 'deny',
      detail: DECIDED_ON_FINAL_ARGS,
    });
  });

  it("an agent's deciding hook decides after every org transform; the gate sees the final args and the asks on them", async () => {
    const gateSaw: Array<{ amount: unknown; asks: unknown }> = [];
    const gate = new Pre((ctx) => {
      gateSaw.push({ amount: ctx.toolArgs.amount, asks: ctx.metadata.confirmationAsks?.map((a) => a.hook) });
      return {};
    });
    const registry = new HookRegistry([
      registeredHook('ask', 90, askOver(50_000)),
      org(registeredHook('org_double', 5, double())),
      registeredHook('gate', 1, gate, { runsLast: true }),
    ]);
    const ctx = call(40_000);
    await registry.runPreToolUse(ctx);
    expect(gateSaw).toEqual([{ amount: 80_000, asks: ['ask'] }]);
    expect(ctx.metadata.confirmationAsks).toEqual([{ hook: 'ask', reason: 'over 50000' }]);
  });

  it("an ask on args that are not sent is dropped: the decide pass's asks on the final args replace it", async () => {
    const registry = new HookRegistry([
      registeredHook('ask', 10, askOver(50_000)),
      registeredHook('cap', 20, capAt(30_000)),
    ]);
    const ctx = call(60_000);
    const verdict = await registry.runPreToolUse(ctx);
    expect(verdict).toMatchObject({ allow: true, args: { amount: 30_000 } });
    expect(ctx.metadata.confirmationAsks).toBeUndefined();
  });

  it('a hook that accepted the args and would change the final ones fails closed (a cap before a doubler)', async () => {
    const registry = new HookRegistry([
      registeredHook('cap', 10, capAt(50_000)),
      registeredHook('double', 20, double()),
    ]);
    const verdict = await registry.runPreToolUse(call(40_000));
    expect(verdict).toMatchObject({ allow: false, blockedBy: 'cap', error: FINAL_ARGS_CHANGED });
    // A cap that did transform this call is a transform: the doubler is ordered after it.
    expect(await registry.runPreToolUse(call(60_000))).toMatchObject({ allow: true, args: { amount: 100_000 } });
  });

  it('a call nothing rewrote runs no decide pass, and the decide pass does not count a rate limit twice', async () => {
    const deciding: unknown[] = [];
    const seen = new Pre((ctx) => {
      deciding.push(ctx.metadata.decidingAgain ?? false);
      return {};
    });
    expect((await new HookRegistry([registeredHook('seen', 1, seen)]).runPreToolUse(call(1))).outcomes).toHaveLength(1);
    expect(deciding).toEqual([false]);
    await new HookRegistry([registeredHook('seen', 1, seen), registeredHook('double', 2, double())]).runPreToolUse(
      call(1),
    );
    expect(deciding).toEqual([false, false, true]);
  });
});
