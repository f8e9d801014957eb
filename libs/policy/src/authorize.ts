import { actionDigest, type GrantStatement, type PolicyInForce } from '@warden/hooks';
import { policyVersion, requirementOf, type Requirement } from './policy-in-force.js';

/** An action about to leave Warden: the tool (its target) and its final args. */
export interface Action {
  tool: string;
  args: Record<string, unknown>;
}

export type Authorization = { decision: 'allow' } | { decision: 'ask' | 'deny'; reason: string };

/**
 * Why `grants` do not allow the action of `digest` under `requirement` and policy `version`, or null when they do:
 * at least `requirement.approvals` distinct principals, each stating exactly this digest, version and tier.
 */
export function approvalRefusal(
  requirement: Requirement,
  version: string,
  digest: string,
  grants: readonly GrantStatement[],
): string | null {
  const matching = grants.filter(
    (g) => g.digest === digest && g.policyVersion === version && g.tier === requirement.tier,
  );
  const principals = new Set(matching.map((g) => g.principal));
  if (principals.size >= requirement.approvals) return null;
  const stale = grants.length - matching.length;
  const why =
    stale > 0
      ? ` (${stale} grant${stale === 1 ? ' is' : 's are'} for other args, another policy version or another tier)`
      : '';
  return (
    `needs ${requirement.approvals} distinct approval${requirement.approvals === 1 ? '' : 's'} ` +
    `of exactly these args under the policy in force, has ${principals.size}${why}`
  );
}

/**
 * The kernel's last word on an action the gate let through with grants: allow only when the grants satisfy the
 * policy evaluated on the digest that will be sent. An approval without grants (e.g. written straight into the
 * database) authorizes nothing.
 */
export function authorize(input: {
  action: Action;
  policy: PolicyInForce | undefined;
  grants: readonly GrantStatement[] | undefined;
}): Authorization {
  const { action, policy, grants } = input;
  if (!policy || !grants)
    return { decision: 'deny', reason: 'the approval carries no grant statements, so it authorizes nothing' };
  const digest = actionDigest(action.tool, action.args);
  const refusal = approvalRefusal(requirementOf(policy, action.args), policyVersion(policy), digest, grants);
  if (refusal === null) return { decision: 'allow' };
  return { decision: grants.length === 0 ? 'ask' : 'deny', reason: refusal };
}
