/**
 * An independent reference model of docs/authorization.md, for the property tests: plain arithmetic on `amount`,
 * no CEL, no digests, no libs/policy. The real kernel is checked against what this says must be sent.
 */

/** A hook of the model: a transform rewrites `amount`, a decider blocks by it. */
export type ModelHook =
  | { kind: 'add'; priority: number; origin: 'org' | 'agent'; k: number }
  | { kind: 'cap'; priority: number; origin: 'org' | 'agent'; max: number }
  | { kind: 'blockOver'; priority: number; origin: 'org' | 'agent'; max: number };

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

export const isTransform = (h: ModelHook): boolean => h.kind !== 'blockOver';

/** The tier of an amount: the first whose threshold it exceeds; null = none (one approval). */
export function referenceTier(policy: ModelPolicy, amount: number): { tier: number | null; approvals: number } {
  for (let i = 0; i < policy.tiers.length; i++) if (amount > policy.tiers[i].over) return { tier: i, approvals: policy.tiers[i].approvals };
  return { tier: null, approvals: 1 };
}

function transformed(h: ModelHook, amount: number): number {
  if (h.kind === 'add') return amount + h.k;
  if (h.kind === 'cap') return Math.min(amount, h.max);
  return amount;
}

/** The transform phase: every transform, by priority. */
function referenceTransform(hooks: ModelHook[], amount: number): number {
  let a = amount;
  for (const h of hooks.filter(isTransform).sort((x, y) => x.priority - y.priority)) a = transformed(h, a);
  return a;
}

/** Decide on an amount nothing changes afterwards: every decider allows it. */
export function referenceDecides(hooks: ModelHook[], amount: number): boolean {
  return hooks.every((h) => h.kind !== 'blockOver' || amount <= h.max);
}

/** Transform, then decide: the amount that reaches the gate, or null when a decider blocks it. */
export function referenceChain(hooks: ModelHook[], amount: number): number | null {
  const a = referenceTransform(hooks, amount);
  return referenceDecides(hooks, a) ? a : null;
}

/** An approver's edit re-enters decide: the transform phase leaves it as it is, and every decider allows it. */
export function referenceEditStands(hooks: ModelHook[], edited: number): boolean {
  return referenceTransform(hooks, edited) === edited && referenceDecides(hooks, edited);
}

/** Sent only with enough distinct principals granting exactly this amount, under the policy in force, at its tier. */
export function referenceGrantsSuffice(inForce: ModelPolicy, amount: number, grants: ModelGrant[]): boolean {
  const { tier, approvals } = referenceTier(inForce, amount);
  const principals = new Set(
    grants.filter((g) => g.amount === amount && g.version === inForce.version && g.tier === tier).map((g) => g.principal),
  );
  return principals.size >= approvals;
}
