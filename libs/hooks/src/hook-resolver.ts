import { Injectable, Optional } from '@nestjs/common';
import { AppConfig, EgressPolicy, Metrics } from '@warden/common';
import { argsSchemaCheck } from './args-schema-check.js';
import { argsDigest } from './builtin/audit/canonical-json.js';
import { HookBuildError } from './hook-build.error.js';
import { HookCatalog } from './hook-catalog.js';
import { checkHookConfig } from './hook-config.validator.js';
import { planHooksConfig, registered } from './hooks-config-plan.js';
import { HookRegistry, type RegisteredHook } from './hook-registry.js';
import type { AgentHookSettings } from './hook.types.js';
import { buildYamlHooks, parseYamlHooks } from './yaml/yaml-hooks.js';
import { mergeOrgAndAgent, type HookChain, type HookOrigin, type ResolvedHook } from './org/hook-origin.js';
import { OrgHooksStore } from './org/org-hooks.store.js';
import { hookNameProblems } from './reserved-hook-names.js';
import { DecisionSink } from './decision-sink.js';

/** `model_config_json.hooks` as users write it. */
export interface HooksConfig {
  class_hooks?: Array<string | { name: string; config?: Record<string, unknown> }>;
  yaml?: string;
}

/**
 * What a chain is built from. `orgHooks`: a candidate org hooks config (a shadow, a replay, a policy test) in place of
 * the org's saved one; never given by a run.
 */
export interface ChainInput {
  hooksConfig: unknown;
  agent?: AgentHookSettings;
  orgHooks?: unknown;
}

/**
 * Turns an agent's `model_config_json.hooks` — plus its org's hooks (PUT /api/org/hooks) — into the HookRegistry of
 * one run, and checks such a config when an agent is saved. Fail closed: an unknown name, a config that fails its
 * schema, bad YAML or a missing command refuses the run (HookBuildError, 422) — nothing is skipped with a warning.
 * Auto-attached hooks (the confirmation gate) are always added. Reads the database only for the org's hooks.
 */
@Injectable()
export class HookResolver {
  constructor(
    private readonly catalog: HookCatalog,
    private readonly config: AppConfig,
    @Optional() private readonly metrics?: Metrics,
    @Optional() private readonly orgHooks?: OrgHooksStore,
    @Optional() private readonly egress?: EgressPolicy,
    @Optional() private readonly decisions?: DecisionSink,
  ) {}

  async resolve({ hooksConfig, agent, orgHooks }: ChainInput): Promise<HookRegistry> {
    const { hooks, digest } = await this.chain({ hooksConfig, agent, orgHooks });
    // Every run checks its calls' final args against their action's schema (not a hook anyone declares or removes).
    const checks = [argsSchemaCheck('before-org'), argsSchemaCheck('before-gate')];
    const registry = new HookRegistry(this.counted([...hooks, ...checks]), agent, digest);
    // A run's registry records its decisions (shadows compare against them, replays read them); a candidate's does not.
    const sink = this.decisions;
    if (sink && orgHooks === undefined) {
      registry.observe((ctx, modelArgs, verdict) =>
        sink.record({ ctx, modelArgs, verdict, hooksConfig, agent, at: new Date() }),
      );
    }
    return registry;
  }

  /**
   * The hook chain of a run of `agent` (its org's hooks when `agent.orgId` is known, the agent's own, the
   * auto-attached ones), each with its origin. Throws HookBuildError listing every problem of either config.
   */
  async chain({ hooksConfig, agent, orgHooks }: ChainInput): Promise<HookChain> {
    const problems: string[] = [];
    const { orgConfig, hooks: org } = await this.orgHooksOf(agent, problems, orgHooks);
    const own = await this.build(hooksConfig, 'hooks', 'agent', problems);
    const merged = mergeOrgAndAgent(org, own);
    merged.hooks.push(...this.autoAttached(new Set(merged.hooks.map((h) => h.name)), problems));
    if (problems.length) throw new HookBuildError(problems);
    return { ...merged, digest: argsDigest({ org: orgConfig ?? null, agent: hooksConfig ?? null }) };
  }

  /** The hooks of `agent`'s org (none when its org is unknown or has none); their problems go to `problems`. */
  private async orgHooksOf(
    agent: AgentHookSettings | undefined,
    problems: string[],
    candidate?: unknown,
  ): Promise<{ orgConfig: unknown; hooks: ResolvedHook[] }> {
    const orgConfig =
      candidate !== undefined
        ? candidate
        : agent?.orgId && this.orgHooks
          ? (await this.orgHooks.find(agent.orgId))?.hooks
          : undefined;
    return {
      orgConfig,
      hooks: orgConfig === undefined ? [] : await this.build(orgConfig, 'org hooks', 'org', problems),
    };
  }

  /** Checks an org's hooks config (PUT /api/org/hooks): every problem, each naming its entry. */
  async validateOrg(hooksConfig: unknown): Promise<string[]> {
    const problems: string[] = [];
    await this.build(hooksConfig, 'hooks', 'org', problems);
    return problems;
  }

  private async build(
    hooksConfig: unknown,
    at: string,
    origin: HookOrigin,
    problems: string[],
  ): Promise<ResolvedHook[]> {
    const plan = planHooksConfig(this.catalog, hooksConfig, at);
    const hooks = [...plan.classHooks];
    if (plan.yaml !== undefined) {
      const parsed = parseYamlHooks(plan.yaml, `${at}.yaml`);
      plan.problems.push(...parsed.problems);
      const built = await buildYamlHooks(parsed.specs, this.config.hooksDir, {
        fetch: this.egress?.fetch,
        allow: this.config.hookHttpAllow,
        secret: this.config.hookHttpSecret,
      });
      plan.problems.push(...built.problems);
      hooks.push(...built.hooks);
    }
    plan.problems.push(...hookNameProblems(hooks, this.catalog, at));
    problems.push(...plan.problems);
    return hooks.map((h) => ({ ...h, origin }));
  }

  /** Metric labels from a bounded set: a catalog hook by name; a YAML hook (named by a tenant) is "other". */
  private counted(hooks: RegisteredHook[]): RegisteredHook[] {
    if (this.metrics)
      for (const h of hooks) h.stats = this.metrics.statsFor(this.catalog.get(h.name) ? h.name : 'other', h.point);
    return hooks;
  }

  /**
   * The registry of a run whose hooks are bypassed (evals: no human waits): none of the agent's own hooks and no
   * gate, but every org-wide hook (an org policy binds evals as it binds chat) and the auto-attached hooks that
   * declare `keepWhenBypassed` — the audit log. Throws HookBuildError when the org's hooks cannot be built.
   */
  async resolveBypassed(agent?: AgentHookSettings): Promise<HookRegistry> {
    const problems: string[] = [];
    const { hooks: org } = await this.orgHooksOf(agent, problems);
    if (problems.length) throw new HookBuildError(problems);
    const kept = this.catalog
      .autoAttached()
      .filter((e) => e.keepWhenBypassed && !org.some((h) => h.name === e.name))
      .map((e) => registered(e, {}));
    return new HookRegistry(this.counted([...org, ...kept]), agent);
  }

  /** Every problem of a hooks config, each naming its entry; empty when the config is good. */
  async validate(hooksConfig: unknown): Promise<string[]> {
    try {
      await this.resolve({ hooksConfig });
      return [];
    } catch (err) {
      if (err instanceof HookBuildError) return err.problems;
      throw err;
    }
  }

  /** The auto-attached hooks neither the org nor the agent declared (with their default config). */
  private autoAttached(declared: Set<string>, problems: string[]): ResolvedHook[] {
    const hooks: ResolvedHook[] = [];
    for (const entry of this.catalog.autoAttached()) {
      if (declared.has(entry.name)) continue;
      const checked = checkHookConfig(entry.configSchema, {}, `auto-attached hook "${entry.name}" config`);
      if (checked.problems.length) problems.push(...checked.problems);
      else hooks.push({ ...registered(entry, checked.config), origin: 'auto' });
    }
    return hooks;
  }
}
