import { randomUUID } from 'node:crypto';
import type { Principal } from '@warden/auth';
import { parseApproverPolicy } from './approver-policy.js';
import { parseEscalationPolicy } from './escalation-policy.js';
import { CONFIRMATION_GATE, HookRegistry, type PreToolUseVerdict, type RegisteredHook } from './hook-registry.js';
import {
  HookPoint,
  type AgentHookSettings,
  type ApproverScope,
  type HookOutcome,
  type HookResult,
  type ToolArgs,
  type ToolCallMetadata,
} from './hook.types.js';
import { YamlHook } from './yaml/yaml-hook.js';

/** One hook's verdict for a sample call (POST /api/hooks/dry-run), with what made it act and what it left. */
export interface DryRunVerdict {
  hook: string;
  point: string;
  outcome: 'allow' | 'block' | 'rewrite' | 'ask' | 'would_require_confirmation';
  detail: string | null;
  /** The args as this hook left them (it rewrote them). */
  args_after?: ToolArgs;
  /** What selected this call: a YAML hook's matcher and condition, or what made the gate ask for a human. */
  rule?: string;
  /** The gate: who may approve this call (the applicable tier's list, else the policy's). */
  approvers?: string[];
  /** The gate: the first tier whose condition holds on the args it received. */
  tier?: { index: number; when: string; approvals: number; approvers?: string[] };
}

const APPROVER_SCOPES: ApproverScope[] = ['initiator', 'agent_owner', 'org_members', 'org_admins'];
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The registry's PreToolUse chain, each hook wrapped to note the args its rewrite leaves (by hook name, in run
 * order). Only the dry run builds this: real runs never pay for the wrapping.
 */
export function tracedPreToolUse(registry: HookRegistry): {
  registry: HookRegistry;
  rewrites: Map<string, ToolArgs[]>;
} {
  const rewrites = new Map<string, ToolArgs[]>();
  const note = (name: string, result: HookResult) => {
    // Untyped at run time (YAML, module and http hooks return whatever they like): the chain checks it after this.
    const args: unknown = isObject(result) ? result.modifiedArgs : undefined;
    if (isObject(args)) rewrites.set(name, [...(rewrites.get(name) ?? []), args]);
    return result;
  };
  const wrapped = registry.hooksAt(HookPoint.PreToolUse).map((entry): RegisteredHook => {
    const original = entry.hook;
    const hook = Object.create(original) as typeof original;
    hook.shouldTrigger = (ctx, config) => original.shouldTrigger(ctx, config);
    hook.execute = (ctx, config) => {
      const result = original.execute(ctx, config);
      return result instanceof Promise ? result.then((r) => note(entry.name, r)) : note(entry.name, result);
    };
    return { ...entry, hook };
  });
  return { registry: new HookRegistry(wrapped, registry.agent, registry.chainDigest), rewrites };
}

/** Why the gate asked for a human on this call (what its trigger found), in the config's own words. */
function gateRule(metadata: ToolCallMetadata, agent: AgentHookSettings): string | undefined {
  const rules: string[] = [];
  if (metadata.confirmationWhen) rules.push(`requires_confirmation_when ${metadata.confirmationWhen}`);
  else if (metadata.requiresConfirmation) rules.push('requires_confirmation (the action)');
  if (agent.requireConfirmationForAll) rules.push('require_confirmation_for_all');
  for (const ask of metadata.confirmationAsks ?? []) rules.push(`${ask.hook} asked: ${ask.reason}`);
  return rules.length ? rules.join('; ') : undefined;
}

/** The gate's approver policy for these args, as the kernel found it (the gate leaves it in the metadata). */
function gatePolicy(metadata: ToolCallMetadata): Pick<DryRunVerdict, 'approvers' | 'tier'> {
  const found = metadata.dryRunRequirement;
  if (!found) return {};
  if (found.tier === null || found.when === null) return { approvers: found.approvers };
  const tier = { index: found.tier, when: found.when, approvals: found.approvals, approvers: found.approvers };
  return { approvers: found.approvers, tier };
}

/** Outcomes as verdicts: a failed hook as what it amounted to, each with its rewrite, rule and (gate) policy. */
export function verdictsOf(
  verdict: PreToolUseVerdict,
  chain: { registry: HookRegistry; rewrites: Map<string, ToolArgs[]> },
  metadata: ToolCallMetadata,
  agent: AgentHookSettings,
): DryRunVerdict[] {
  const entries = new Map(chain.registry.hooksAt(HookPoint.PreToolUse).map((h) => [h.name, h]));
  return verdict.outcomes.map((o) => {
    const v = toVerdict(o, !verdict.allow && verdict.blockedBy === o.hook);
    const rewrite = o.outcome === 'block' || o.outcome === 'error' ? undefined : chain.rewrites.get(o.hook)?.shift();
    if (rewrite) v.args_after = rewrite;
    const hook = entries.get(o.hook)?.hook;
    if (hook instanceof YamlHook && hook.rule) v.rule = hook.rule;
    if (o.hook === CONFIRMATION_GATE) {
      const rule = gateRule(metadata, agent);
      Object.assign(v, rule ? { rule } : {}, gatePolicy(metadata));
    }
    return v;
  });
}

/**
 * A failed hook is reported as what it amounted to: a block when it closed the gate, else (on_error: allow) an allow.
 */
export function toVerdict(o: HookOutcome, closedTheGate: boolean): DryRunVerdict {
  const outcome = o.outcome === 'error' ? (closedTheGate ? 'block' : 'allow') : o.outcome;
  const detail = o.detail ?? (o.sideEffects.length ? o.sideEffects.join('; ') : null);
  return { hook: o.hook, point: o.point, outcome, detail: o.outcome === 'error' ? `hook failed: ${detail}` : detail };
}

/** Hook settings for a config that is not saved yet (the same keys, and the same checks, as the agents API). */
export function unsavedAgent(
  json: Record<string, unknown>,
  principal: Principal,
): { agent: AgentHookSettings; problems: string[] } {
  const c = isObject(json.confirmation) ? json.confirmation : {};
  const scope = APPROVER_SCOPES.includes(c.approver_scope as ApproverScope)
    ? (c.approver_scope as ApproverScope)
    : 'initiator';
  const forbidSelfApproval = c.forbid_self_approval === true;
  const at = 'model_config_json.confirmation';
  const { policy, problems } = parseApproverPolicy(c, { at, legacyScope: scope, forbidSelfApproval });
  const { escalation, problems: escalationProblems } = parseEscalationPolicy(c, at);
  const agent: AgentHookSettings = {
    id: randomUUID(),
    name: 'dry run',
    orgId: principal.orgId,
    ownerUserId: principal.userId,
    requireConfirmationForAll: json.require_confirmation_for_all === true,
    confirmation: {
      channelId: typeof c.channel_id === 'string' ? c.channel_id : undefined,
      timeoutS: typeof c.timeout_s === 'number' ? c.timeout_s : 120,
      approverScope: scope,
      forbidSelfApproval,
      ...policy,
      ...escalation,
    },
  };
  return { agent, problems: [...problems, ...escalationProblems] };
}
