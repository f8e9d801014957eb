import { CHAIN_CHANGED_REWRITE, CONFIRMATION_GATE, HookRegistry, type ToolCallContext } from './hook-registry.js';
import type { ToolCallMetadata } from './hook.types.js';
import { Pre, registeredHook } from './testing/registered-hooks.js';
import { toolCallContext } from './testing/tool-call-context.js';

/** A gate-like hook that runs last and answers `result`; `calls` counts its runs. */
function gate(result: () => Record<string, unknown>, calls: string[]) {
  return registeredHook(
    CONFIRMATION_GATE,
    10,
    new Pre(() => {
      calls.push(CONFIRMATION_GATE);
      return result();
    }),
    { runsLast: true },
  );
}

/** The hook contract's `park`: the gate parks a call of a run that can park, and a parked call resumes at the gate. */
describe('HookRegistry: parking at the gate', () => {
  let calls: string[];
  let events: string[];
  const rewrite = () =>
    registeredHook(
      'rewrite',
      1,
      new Pre((ctx) => {
        calls.push('rewrite');
        return { modifiedArgs: { ...ctx.toolArgs, amount: 72_000 } };
      }),
    );
  const context = (
    metadata: ToolCallMetadata,
    toolArgs: Record<string, unknown> = { id: 'PO-1', amount: 10_000 },
  ): ToolCallContext =>
    toolCallContext({
      toolArgs,
      metadata,
      emit: (type, data) => {
        events.push(`${type}:${String((data as { hook?: string }).hook)}`);
        return Promise.resolve();
      },
    });
  beforeEach(() => {
    calls = [];
    events = [];
  });

  it('the gate of a run that can park parks the call: the chain stops with no outcome for the gate, the args it saw kept', async () => {
    const registry = new HookRegistry([rewrite(), gate(() => ({ park: { confirmationId: 'c-1' } }), calls)]);
    const verdict = await registry.runPreToolUse(context({ canPark: true }));
    expect(verdict).toMatchObject({
      allow: false,
      parked: { confirmationId: 'c-1' },
      blockedBy: CONFIRMATION_GATE,
      args: { id: 'PO-1', amount: 72_000 },
    });
    expect(events).toEqual(['hook:rewrite']);
  });

  it('a park from a run that cannot park, or from a hook that does not run last, is a hook failure: the call is blocked', async () => {
    const parks = () => ({ park: { confirmationId: 'c-1' } });
    const cannot = await new HookRegistry([gate(parks, calls)]).runPreToolUse(context({}));
    expect(cannot).toMatchObject({
      allow: false,
      blockedBy: CONFIRMATION_GATE,
      error: expect.stringMatching(/may park/),
    });
    expect(cannot.parked).toBeUndefined();
    const early = registeredHook('early', 1, new Pre(parks));
    const notLast = await new HookRegistry([early]).runPreToolUse(context({ canPark: true }));
    expect(notLast).toMatchObject({ allow: false, blockedBy: 'early', error: expect.stringMatching(/may park/) });
    expect(events).toEqual(['hook:confirmation_gate', 'hook:early']);
  });

  it('a parked call resumes at the gate: only the gate runs, on the args it parked with, and records its outcome', async () => {
    const approval = { confirmationId: 'c-1', argsDigest: 'd' };
    const registry = new HookRegistry([rewrite(), gate(() => ({ approval }), calls)]);
    const verdict = await registry.runPreToolUse(
      context({ resumedAtGate: true }, { id: 'PO-1', amount: 72_000 }),
      true,
    );
    expect(calls).toEqual([CONFIRMATION_GATE]);
    expect(verdict).toMatchObject({ allow: true, approval, args: { id: 'PO-1', amount: 72_000 } });
    expect(events).toEqual(['hook:confirmation_gate']);
  });

  it('a parked call whose agent has no gate any more is blocked, never let through undecided', async () => {
    const verdict = await new HookRegistry([rewrite()]).runPreToolUse(context({ resumedAtGate: true }), true);
    expect(verdict).toMatchObject({
      allow: false,
      blockedBy: CONFIRMATION_GATE,
      error: expect.stringMatching(/no longer has an approval gate/),
    });
    expect(calls).toEqual([]);
  });

  describe('resuming under another chain (#28 break 14)', () => {
    const approved = () => gate(() => ({ approval: { confirmationId: 'c-1', argsDigest: 'd' } }), calls);
    const counted = () =>
      registeredHook(
        'count',
        2,
        Object.assign(
          new Pre(() => {
            calls.push('count');
            return {};
          }),
          { shouldTrigger: (ctx: ToolCallContext) => !ctx.metadata.decidingAgain },
        ),
      );
    const resumed = () => context({ resumedAtGate: true }, { id: 'PO-1', amount: 72_000 });
    const modelArgs = { id: 'PO-1', amount: 10_000 };

    it('the same chain: only the gate runs', async () => {
      const registry = new HookRegistry([rewrite(), approved()], undefined, 'v1');
      const verdict = await registry.resumeAtGate(resumed(), { modelArgs, chain: 'v1' });
      expect(verdict).toMatchObject({ allow: true, args: { amount: 72_000 } });
      expect(calls).toEqual([CONFIRMATION_GATE]);
    });

    it('another chain giving the same call: the hooks before the gate run again (counting hooks skip), the call goes', async () => {
      const registry = new HookRegistry([rewrite(), counted(), approved()], undefined, 'v2');
      const verdict = await registry.resumeAtGate(resumed(), { modelArgs, chain: 'v1' });
      expect(verdict).toMatchObject({ allow: true, args: { amount: 72_000 }, approval: { confirmationId: 'c-1' } });
      expect(calls).toEqual([CONFIRMATION_GATE, 'rewrite']);
    });

    it('another chain making another call, or none recorded: denied by the gate, naming why', async () => {
      const registry = new HookRegistry([approved()], undefined, 'v2');
      const verdict = await registry.resumeAtGate(resumed(), { modelArgs });
      expect(verdict).toMatchObject({
        allow: false,
        blockedBy: CONFIRMATION_GATE,
        error: CHAIN_CHANGED_REWRITE,
        args: modelArgs,
      });
    });
  });
});
