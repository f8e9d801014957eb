import type { PolicySubject } from '@warden/hooks';

/** The keys of `model_config_json` that make an agent's policy (what is versioned, diffed and rolled back). */
export const POLICY_KEYS = ['hooks', 'confirmation', 'require_confirmation_for_all'] as const;

/** The agent's policy: the policy keys of its config that are set. */
export function policyOf(modelConfig: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(POLICY_KEYS.filter((k) => modelConfig[k] !== undefined).map((k) => [k, modelConfig[k]]));
}

/** The config with its policy replaced by `policy` (keys the policy lacks are removed; the rest is kept). */
export function withPolicy(
  modelConfig: Record<string, unknown>,
  policy: Record<string, unknown>,
): Record<string, unknown> {
  const rest = Object.fromEntries(
    Object.entries(modelConfig).filter(([k]) => !(POLICY_KEYS as readonly string[]).includes(k)),
  );
  return { ...rest, ...policyOf(policy) };
}

export const agentPolicy = (orgId: string, agentId: string): PolicySubject => ({ orgId, type: 'agent', id: agentId });
