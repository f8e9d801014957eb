/**
 * An independent reference model of docs/authorization.md, for the property tests: plain arithmetic on `amount`,
 * no CEL, no digests, no libs/policy. The real kernel is checked against what this says must be sent.
 */

/** A hook of the model: a transform rewrites `amount`, a decider blocks or asks by it. */
export type ModelHook =
  | { kind: 'add'; priority: number; origin: 'org' | 'agent'; k: number }
  | { kind: 'cap'; priority: number; origin: 'org' | 'agent'; max: number }
  | { kind: 'blockOver'; priority: number; origin: 'org' | 'agent'; max: number }
  | { kind: 'askOver'; priority: number; origin: 'org' | 'agent'; max: number };

/** A tier of the model: `amount > over` needs `approvals` distinct approvers. */
export interface ModelTier {
  over: number;
  approvals: number;
}

/** The model's approver policy; `version` names it (a changed policy has another name). */
export interface ModelPolicy {
  version: 'v1' | 'v2';
  tiers: ModelTier[];
}

/** "principal allows amount under version at tier" — the model's grant. */
export interface ModelGrant {
  principal: string;
  amount: number;
  version: 'v1' | 'v2';
  tier: number | null;
}

/** The tier of an amount: the first whose threshold it exceeds; null = none (one approval). */
export function referenceTier(policy: ModelPolicy, amount: number): { tier: number | null; approvals: number } {
  for (let i = 0; i < policy.tiers.length; i++)
    if (amount > policy.tiers[i].over) return { tier: i, approvals: policy.tiers[i].approvals };
  return { tier: null, approvals: 1 };
}

/** What a hook makes of an amount: another amount (a transform's rewrite), a block, an ask, or nothing. */
function verdictOf(h: ModelHook, amount: number): { to: number } | 'block' | 'ask' | null {
  if (h.kind === 'blockOver') return amount > h.max ? 'block' : null;
  if (h.kind === 'askOver') return amount > h.max ? 'ask' : null;
  const to = h.kind === 'add' ? amount + h.k : Math.min(amount, h.max);
  return to === amount ? null : { to };
}

/** The run order: the agent's hooks, then the org's (bands), each by priority. */
const inRunOrder = (hooks: ModelHook[]) =>
  hooks
    .map((hook, index) => ({ hook, index }))
    .sort(
      (x, y) => Number(x.hook.origin === 'org') - Number(y.hook.origin === 'org') || x.hook.priority - y.hook.priority,
    );

/**
 * Transform, then decide (docs/authorization.md "Phases"): the hooks rewrite in run order (a block stops the call);
 * every hook that ran before the last rewrite decides again on the final amount: a block or an ask there counts (its
 * ask of the first pass does not), and a hook that did not rewrite in the first pass but would change the final
 * amount blocks. Returns the amount that reaches the gate and the indexes of the hooks that ask, or null (blocked).
 */
export function referenceChain(hooks: ModelHook[], amount: number): { amount: number; asks: number[] } | null {
  const order = inRunOrder(hooks);
  const asks = new Map<number, boolean>();
  const rewrote = new Set<number>();
  let last = -1;
  let a = amount;
  for (let i = 0; i < order.length; i++) {
    const v = verdictOf(order[i].hook, a);
    if (v === 'block') return null;
    if (v === 'ask') asks.set(order[i].index, true);
    if (v !== null && v !== 'ask') {
      a = v.to;
      rewrote.add(order[i].index);
      last = i;
    }
  }
  for (let i = 0; i < last; i++) {
    const { hook, index } = order[i];
    const v = verdictOf(hook, a);
    if (v === 'block' || (v !== null && v !== 'ask' && !rewrote.has(index))) return null;
    asks.set(index, v === 'ask');
  }
  return { amount: a, asks: [...asks].filter(([, asked]) => asked).map(([index]) => index) };
}

/** An approver's edit re-enters transform and decide: it stands when the chain allows it and leaves it as it is. */
export function referenceEditStands(hooks: ModelHook[], edited: number): boolean {
  return referenceChain(hooks, edited)?.amount === edited;
}

/** Sent only with enough distinct principals granting exactly this amount, under the policy in force, at its tier. */
export function referenceGrantsSuffice(inForce: ModelPolicy, amount: number, grants: ModelGrant[]): boolean {
  const { tier, approvals } = referenceTier(inForce, amount);
  const principals = new Set(
    grants
      .filter((g) => g.amount === amount && g.version === inForce.version && g.tier === tier)
      .map((g) => g.principal),
  );
  return principals.size >= approvals;
}

/*
 * The database model (authorization-model.db.spec.ts): people a1, a2, a3 (admins), m1, m2 (members); two policies,
 * each "over its threshold, two admins", else one member.
 */
export const PEOPLE = ['a1', 'a2', 'a3', 'm1', 'm2'] as const;
export const ADMINS = new Set(['a1', 'a2', 'a3']);
/** Two policies: over the threshold, two admins. */
export const POLICIES = { P1: 500_000, P2: 100_000 } as const;
export type PolicyName = keyof typeof POLICIES;

export const tierOf = (p: PolicyName, amount: number) =>
  amount > POLICIES[p] ? { tier: 0, approvals: 2, admins: true } : { tier: null, approvals: 1, admins: false };

export interface ModelRequest {
  id: string;
  amount: number;
  openedUnder: PolicyName;
  sent: boolean;
  /** Who the request was reassigned to: its only approver, until an edit rebinds it to a tier's approvers. */
  assignee?: string;
}
export interface DbModel {
  policy: PolicyName;
  requests: ModelRequest[];
  votes: Array<{ who: string; request: string; amount: number; under: PolicyName }>;
  standing: Array<{ who: string; bound: number; under: PolicyName; tier: number | null }>;
  sends: number;
}

/** Distinct people who approved exactly this amount of this request under the policy in force, qualified at its tier. */
export function referenceAllows(m: DbModel, r: ModelRequest, amount: number): boolean {
  if (r.openedUnder !== m.policy) return false;
  const t = tierOf(m.policy, amount);
  const who = new Set(
    m.votes
      .filter(
        (v) => v.request === r.id && v.amount === amount && v.under === m.policy && (!t.admins || ADMINS.has(v.who)),
      )
      .map((v) => v.who),
  );
  return who.size >= t.approvals;
}

export function referenceCovers(m: DbModel, amount: number): boolean {
  const t = tierOf(m.policy, amount);
  return t.approvals === 1 && m.standing.some((s) => amount <= s.bound && s.under === m.policy && s.tier === t.tier);
}

/** May `who` decide the request now: its assignee only, once reassigned; else whoever its tier names. */
export function referenceMayDecide(r: ModelRequest, who: string): boolean {
  if (r.assignee !== undefined) return who === r.assignee;
  return !tierOf(r.openedUnder, r.amount).admins || ADMINS.has(who);
}

/** Has `who` a vote on the request: an approval from someone who could give it (a non-admin's edit into tier 0 is none). */
const hasVoted = (m: DbModel, r: ModelRequest, who: string) =>
  m.votes.some((v) => v.request === r.id && v.who === who && (!tierOf(v.under, v.amount).admins || ADMINS.has(who)));

export type ReassignOutcome = 'moved' | 'forbidden' | 'bad_input' | 'conflict';

/**
 * A reassignment by `by` to `to` (README "Reminders, escalation, reassignment"): only an approver may hand it over,
 * only while pending, only to someone who may approve it, never when either has voted or more than one approval is
 * missing. `row`: the request as the store has it (status and approvals still missing).
 */
export function referenceReassign(
  m: DbModel,
  r: ModelRequest,
  by: string,
  to: string,
  row: { pending: boolean; missing: number },
): ReassignOutcome {
  if (!referenceMayDecide(r, by)) return 'forbidden';
  if (!row.pending) return 'conflict';
  if (!referenceMayDecide(r, to)) return 'bad_input';
  if (hasVoted(m, r, by) || hasVoted(m, r, to) || row.missing > 1) return 'conflict';
  return 'moved';
}
