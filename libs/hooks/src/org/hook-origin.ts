import type { HookOrigin, RegisteredHook } from '../hook-chain.js';

export type { HookOrigin } from '../hook-chain.js';

export type ResolvedHook = RegisteredHook & { origin: HookOrigin };

/** A run's hook chain before it becomes a registry: what GET /api/agents/:id/hooks/effective shows. */
export interface HookChain {
  hooks: ResolvedHook[];
  /** Agent entries dropped because the org declares a hook of the same name (the org's declaration wins). */
  overridden: Array<{ name: string; by: 'org' }>;
  /** Digest of what the chain was built from (the org's and the agent's hooks config): see HookRegistry.chainDigest. */
  digest?: string;
}

/**
 * Puts the org's hooks and the agent's own into one chain. An agent entry named like an org entry is dropped, so an
 * agent can neither remove nor reconfigure (weaken) an org hook; ordering is left to the registry (byRunOrder).
 */
export function mergeOrgAndAgent(org: ResolvedHook[], agent: ResolvedHook[]): HookChain {
  const orgNames = new Set(org.map((h) => h.name));
  const overridden = agent.filter((h) => orgNames.has(h.name)).map((h) => ({ name: h.name, by: 'org' as const }));
  return { hooks: [...org, ...agent.filter((h) => !orgNames.has(h.name))], overridden };
}
