import {
  actionDigest,
  HookRegistry,
  type GrantStatement,
  type PolicyInForce,
  type RegisteredHook,
} from '@warden/hooks';
import { authorize, policyVersion } from '@warden/policy';
import * as fc from 'fast-check';
import { Pre, registeredHook } from '../../libs/hooks/src/testing/registered-hooks.js';
import { toolCallContext } from '../../libs/hooks/src/testing/tool-call-context.js';
import {
  referenceChain,
  referenceEditStands,
  referenceGrantsSuffice,
  referenceTier,
  type ModelGrant,
  type ModelHook,
  type ModelPolicy,
  type ModelTier,
} from './authorization-reference.js';

/**
 * Acceptance 2 of #28 (pure part): the real hook chain, the real edit re-entry (`HookRegistry.redecide`) and the
 * real kernel (`authorize`) against the reference model (authorization-reference.ts), on random org and agent hooks
 * (transforming and deciding), tiers, policy changes, edits and grants. Every action sent must be one the reference
 * allows, and every action the reference allows must be sent.
 *
 * Priorities: transforms and deciders (blocking and asking) draw from the same range in both bands (org, agent), so
 * they interleave at any priority: a decider placed before a transform decides again on the final args (the decide
 * pass, docs/authorization.md "Phases").
 */
const BANDS = { transform: { min: 1, max: 99 }, decide: { min: 1, max: 99 } };
const TOOL = 'oa__purchase_pay';
const CASES = 10_000;

const origin = fc.constantFrom<'org' | 'agent'>('org', 'agent');
const amount = fc.oneof(fc.integer({ min: 0, max: 1_200_000 }), fc.constantFrom(0, 50_000, 500_000, 1_000_000));
const hookArb: fc.Arbitrary<ModelHook> = fc.oneof(
  fc.record({
    kind: fc.constant('add' as const),
    priority: fc.integer(BANDS.transform),
    origin,
    k: fc.constantFrom(0, 1, -1, 400_000),
  }),
  fc.record({ kind: fc.constant('cap' as const), priority: fc.integer(BANDS.transform), origin, max: amount }),
  fc.record({ kind: fc.constant('blockOver' as const), priority: fc.integer(BANDS.decide), origin, max: amount }),
  fc.record({ kind: fc.constant('askOver' as const), priority: fc.integer(BANDS.decide), origin, max: amount }),
);
const tiersArb: fc.Arbitrary<ModelTier[]> = fc.array(
  fc.record({ over: fc.constantFrom(50_000, 500_000, 900_000), approvals: fc.integer({ min: 1, max: 3 }) }),
  { maxLength: 3 },
);

/** The real policy of a model policy: tiers as CEL; v2 differs from v1 in a rule that decides who may approve. */
function realPolicy(p: ModelPolicy): PolicyInForce {
  return {
    approvers: ['org_members'],
    approverScope: p.version === 'v1' ? 'initiator' : 'agent_owner',
    forbidSelfApproval: false,
    tiers: p.tiers.map((t) => ({ when: `args.amount > ${t.over}`, approvals: t.approvals })),
  };
}

const nameOf = (h: ModelHook, i: number) => `${h.origin}_${h.kind}_${i}`;

function realHooks(hooks: ModelHook[]): RegisteredHook[] {
  return hooks.map((h, i) => ({
    ...registeredHook(
      nameOf(h, i),
      h.priority,
      new Pre((ctx) => {
        const a = Number(ctx.toolArgs.amount);
        if (h.kind === 'blockOver') return a > h.max ? { allow: false, error: `over ${h.max}` } : {};
        if (h.kind === 'askOver') return a > h.max ? { ask: `over ${h.max}` } : {};
        const next = h.kind === 'add' ? a + h.k : Math.min(a, h.max);
        return next === a ? {} : { modifiedArgs: { ...ctx.toolArgs, amount: next } };
      }),
    ),
    origin: h.origin,
  }));
}

const scenario = fc.record({
  // Distinct priorities: the order of two hooks never hangs on the tie rule (by name).
  hooks: fc.uniqueArray(hookArb, { maxLength: 5, selector: (h) => h.priority }),
  tiers: tiersArb,
  amount,
  edit: fc.option(amount, { nil: undefined }),
  /** The policy changed between the grants and the send (tiers kept, who may approve changed). */
  policyChanged: fc.boolean(),
  grants: fc.array(
    fc.record({
      principal: fc.constantFrom('p1', 'p2', 'p3', 'p4'),
      of: fc.constantFrom('sent', 'proposed', 'gate', 'other'),
      other: amount,
      version: fc.constantFrom<'v1' | 'v2'>('v1', 'v1', 'v2'),
      tierRight: fc.boolean(),
      tierWrong: fc.constantFrom(null, 0, 1, 2),
    }),
    { maxLength: 5 },
  ),
});

describe('authorization kernel against the reference model (pure, fast-check)', () => {
  it(`${CASES} random cases: sent exactly when the reference allows`, async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const registry = new HookRegistry(realHooks(s.hooks));
        const ctx = toolCallContext({ toolArgs: { id: 'PO-1', amount: s.amount } });
        const verdict = await registry.runPreToolUse(ctx);
        const reference = referenceChain(s.hooks, s.amount);
        expect(verdict.allow).toBe(reference !== null);
        if (reference === null) return;
        expect(verdict.args.amount).toBe(reference.amount);
        const asked = (ctx.metadata.confirmationAsks ?? []).map((a) => a.hook).sort();
        expect(asked).toEqual(reference.asks.map((i) => nameOf(s.hooks[i], i)).sort());
        const atGate = reference.amount;

        let sent = atGate;
        if (s.edit !== undefined) {
          sent = s.edit;
          const again = await registry.redecide(ctx, { id: 'PO-1', amount: s.edit });
          expect(again.allow).toBe(referenceEditStands(s.hooks, s.edit));
          if (!again.allow) return;
        }
        const inForce: ModelPolicy = { version: s.policyChanged ? 'v2' : 'v1', tiers: s.tiers };
        const modelGrants: ModelGrant[] = s.grants.map((g) => {
          const granted = { sent, proposed: s.amount, gate: atGate, other: g.other }[g.of];
          const right = referenceTier({ version: g.version, tiers: s.tiers }, granted).tier;
          return {
            principal: g.principal,
            amount: granted,
            version: g.version,
            tier: g.tierRight ? right : g.tierWrong,
          };
        });
        const grants: GrantStatement[] = modelGrants.map((g) => ({
          kind: 'vote',
          principal: g.principal,
          digest: actionDigest(TOOL, { id: 'PO-1', amount: g.amount }),
          policyVersion: policyVersion(realPolicy({ version: g.version, tiers: s.tiers })),
          tier: g.tier,
        }));
        const real = authorize({
          action: { tool: TOOL, args: { id: 'PO-1', amount: sent } },
          policy: realPolicy(inForce),
          grants,
        });
        expect(real.decision === 'allow').toBe(referenceGrantsSuffice(inForce, sent, modelGrants));
      }),
      { numRuns: CASES },
    );
  });

  it('found by the model: args cloned in another realm (structuredClone under jest) are evaluated, not sent to the strictest tier', () => {
    const policy = realPolicy({ version: 'v1', tiers: [{ over: 500_000, approvals: 2 }] });
    const args = structuredClone({ id: 'PO-1', amount: 60_000 });
    const grants: GrantStatement[] = [
      {
        kind: 'vote',
        principal: 'p1',
        digest: actionDigest(TOOL, args),
        policyVersion: policyVersion(policy),
        tier: null,
      },
    ];
    expect(authorize({ action: { tool: TOOL, args }, policy, grants })).toEqual({ decision: 'allow' });
  });

  it('an approval without grants, or without the policy it must satisfy, authorizes nothing', () => {
    const policy = realPolicy({ version: 'v1', tiers: [] });
    const args = { id: 'PO-1', amount: 1 };
    expect(authorize({ action: { tool: TOOL, args }, policy, grants: undefined }).decision).toBe('deny');
    expect(authorize({ action: { tool: TOOL, args }, policy: undefined, grants: [] }).decision).toBe('deny');
    expect(authorize({ action: { tool: TOOL, args }, policy, grants: [] }).decision).toBe('ask');
  });
});
