import { canonicalJson } from '@warden/common';
import { HookChain, HookChainRun, type RegisteredHook } from './hook-chain.js';
import {
  BLOCKED_CALL,
  POST_TOOL_USE,
  PRE_TOOL_USE,
  SESSION_START,
  textPoint,
  type PreToolUseVerdict,
  type TextHookVerdict,
} from './hook-chain-points.js';
import type { ToolCallContext } from './hook-invocation.js';
import { actionDigest } from './builtin/audit/canonical-json.js';
import { PreToolUsePhases } from './pre-tool-use-phases.js';
import {
  HookPoint,
  type AgentHookSettings,
  type HookOutcome,
  type PostToolUseHook,
  type ToolArgs,
} from './hook.types.js';

export { HookTimeoutError, type RegisteredHook } from './hook-chain.js';
export type { PreToolUseVerdict } from './hook-chain-points.js';
export { HookInvocation, type ToolCallContext } from './hook-invocation.js';

export const DEFAULT_HOOK_TIMEOUT_MS = 5000;

/** Why a call is blocked when the args to be sent are not the ones its approval covers. */
export const ARGS_CHANGED_AFTER_APPROVAL = 'args changed after approval: the call was not sent';
/** Why an approver's edit is not sent when a hook would still rewrite it: the approval covers exactly the edit. */
export const EDIT_NOT_FINAL =
  "a hook would change the approver's edited args, so the approval does not cover what would be sent";
/** The name the confirmation gate blocks under (also when the runtime's own re-check of an approval fails). */
export const CONFIRMATION_GATE = 'confirmation_gate';
/** Why a resumed call is denied when the hooks in force now turn the model's call into another than the approved one. */
export const CHAIN_CHANGED_REWRITE =
  'the hooks changed while the call waited for its approval and now make it a different call than the one approved: it was not sent';

/** Told of each PreToolUse decision on a live call (not a dry run, a resume or a second decision); must not throw. */
export type DecisionObserver = (ctx: ToolCallContext, modelArgs: ToolArgs, verdict: PreToolUseVerdict) => void;

/** A call parked at the gate, as it resumes: the model's own args, and the chain it was parked under. */
export interface ParkedCall {
  modelArgs: ToolArgs;
  /** HookRegistry.chainDigest when it parked (absent for calls parked before digests were recorded). */
  chain?: string;
}

/** The observation the model reads for a blocked call (DESIGN.md). */
export function blockedObservation(hook: string, error: string): string {
  return `Tool call blocked by ${hook}: ${error}`;
}

const TEXT_POINTS = [
  HookPoint.UserPromptSubmit,
  HookPoint.PreModelCall,
  HookPoint.PostToolUseFailure,
  HookPoint.Stop,
] as const;
const NO_HOOKS: readonly RegisteredHook[] = Object.freeze([]);

/**
 * The hooks attached to one run: one HookChain per point, built once, run with the semantics of DESIGN.md (see
 * HookChain). Cheap to build and to run: no database, no timer for hooks that return synchronously.
 */
export class HookRegistry {
  private readonly pre: HookChain<PreToolUseVerdict>;
  /** The PreToolUse hooks that run last (the confirmation gate): where a parked call resumes. */
  private readonly gate: HookChain<PreToolUseVerdict>;
  /** The PreToolUse hooks before the gate: what decides a parked call again when the chain changed while it waited. */
  private readonly beforeGate: HookChain<PreToolUseVerdict>;
  /** Transform, decide, gate: how every PreToolUse call is decided (docs/authorization.md "Phases"). */
  private readonly phases: PreToolUsePhases;
  private readonly post: HookChain<{ result: string; outcomes: HookOutcome[] }>;
  private readonly sessionStart: HookChain<{ additionalContext: string[]; outcomes: HookOutcome[] }>;
  private readonly blockedListeners: HookChain<HookOutcome[]>;
  private readonly text = new Map<HookPoint, HookChain<TextHookVerdict>>();
  private observer: DecisionObserver | undefined;

  /**
   * @param chainDigest what the chain was built from (HookResolver): a call parked under another digest is decided
   * again by the hooks before the gate when it resumes.
   */
  constructor(
    private readonly hooks: RegisteredHook[],
    readonly agent?: AgentHookSettings,
    readonly chainDigest = '',
  ) {
    const at = (point: HookPoint) => hooks.filter((h) => h.point === point);
    this.pre = new HookChain(at(HookPoint.PreToolUse), PRE_TOOL_USE);
    this.gate = new HookChain(
      this.pre.hooks.filter((h) => h.runsLast),
      PRE_TOOL_USE,
    );
    this.beforeGate = new HookChain(
      this.pre.hooks.filter((h) => !h.runsLast),
      PRE_TOOL_USE,
    );
    this.phases = new PreToolUsePhases(this.beforeGate, this.gate);
    this.post = new HookChain(at(HookPoint.PostToolUse), POST_TOOL_USE);
    this.sessionStart = new HookChain(at(HookPoint.SessionStart), SESSION_START);
    this.blockedListeners = new HookChain(
      this.post.hooks.filter((h) => typeof (h.hook as PostToolUseHook).onBlocked === 'function'),
      BLOCKED_CALL,
    );
    for (const point of TEXT_POINTS) this.text.set(point, new HookChain(at(point), textPoint(point)));
  }

  /** Tells `observer` of every live PreToolUse decision of this registry (HookResolver: the DecisionSink). */
  observe(observer: DecisionObserver): this {
    this.observer = observer;
    return this;
  }

  /** A registry with no hooks at all (eval runs bypass hooks on purpose). */
  static empty(): HookRegistry {
    return new HookRegistry([]);
  }

  /** The hooks of one point in run order. */
  hooksAt(point: HookPoint): readonly RegisteredHook[] {
    switch (point) {
      case HookPoint.PreToolUse:
        return this.pre.hooks;
      case HookPoint.PostToolUse:
        return this.post.hooks;
      case HookPoint.SessionStart:
        return this.sessionStart.hooks;
      default:
        return this.text.get(point)?.hooks ?? NO_HOOKS;
    }
  }

  entries(): Array<{
    name: string;
    point: HookPoint;
    priority: number;
    source: 'class' | 'yaml';
    autoAttached: boolean;
  }> {
    const attached = this.pre.hooks.filter((h) => !h.checksArgs);
    return [...this.sessionStart.hooks, ...attached, ...this.post.hooks].map((h) => ({
      name: h.name,
      point: h.point,
      priority: h.priority,
      source: h.source,
      autoAttached: h.autoAttached,
    }));
  }

  runSessionStart(ctx: ToolCallContext): Promise<{ additionalContext: string[]; outcomes: HookOutcome[] }> {
    this.attachAgent(ctx);
    return this.sessionStart.run(ctx, new HookChainRun(ctx.toolArgs, undefined, []));
  }

  /**
   * The PreToolUse chain; `atGate`: only the gate, for a call parked there (ctx.toolArgs are the args the gate saw).
   * A parked call whose agent no longer has a gate is blocked: nothing may let it through undecided.
   */
  runPreToolUse(ctx: ToolCallContext, atGate = false): Promise<PreToolUseVerdict> {
    if (atGate) {
      this.attachAgent(ctx);
      if (this.gate.hooks.length > 0) return this.gate.run(ctx, new HookChainRun(ctx.toolArgs, undefined));
      const error = 'the call waited for an approval, but its agent no longer has an approval gate';
      return Promise.resolve({
        allow: false,
        args: ctx.toolArgs,
        blockedBy: CONFIRMATION_GATE,
        error,
        wouldRequireConfirmation: false,
        outcomes: [],
      });
    }
    if (this.pre.hooks.length === 0)
      return Promise.resolve({ allow: true, args: ctx.toolArgs, wouldRequireConfirmation: false, outcomes: [] });
    this.attachAgent(ctx);
    const decided = this.phases.run(ctx, true);
    const observer = this.observer;
    if (!observer || ctx.metadata.dryRun || ctx.metadata.decidingAgain) return decided;
    const modelArgs = ctx.toolArgs;
    return decided.then((verdict) => {
      observer(ctx, modelArgs, verdict);
      return verdict;
    });
  }

  /**
   * An approver changed the args after the chain decided (approve with changes): the call re-enters *decide* on
   * them — every PreToolUse hook but the gate runs again on these args, in its phases (transform, decide; org
   * policies included). The edit must be a fixed point: a hook that would block it or a chain that would leave other
   * args stops the call (docs/authorization.md).
   */
  async redecide(ctx: ToolCallContext, args: ToolCallContext['toolArgs']): Promise<PreToolUseVerdict> {
    const again = { ...ctx, toolArgs: args, metadata: { ...ctx.metadata, confirmationAsks: undefined } };
    this.attachAgent(again);
    const verdict = await this.phases.run(again, false);
    if (verdict.allow && canonicalJson(verdict.args) !== canonicalJson(args)) {
      return {
        ...verdict,
        allow: false,
        blockedBy: [...verdict.outcomes].reverse().find((o) => o.outcome === 'rewrite')?.hook ?? 'a hook',
        error: EDIT_NOT_FINAL,
      };
    }
    return verdict;
  }

  /**
   * A call parked at the gate resumes (ctx.toolArgs: the args the gate saw). The gate settles its decision; when the
   * chain in force now is not the one it parked under, the hooks before the gate then decide the model's call again
   * (`decidingAgain`): a block stands, and a rewrite that no longer gives the approved args denies it. So whichever
   * instance resumes it, the chain in force decides (DESIGN.md "Authorization").
   */
  async resumeAtGate(ctx: ToolCallContext, parked: ParkedCall): Promise<PreToolUseVerdict> {
    const gate = await this.runPreToolUse(ctx, true);
    if (!gate.allow || parked.chain === this.chainDigest) return gate;
    const metadata = { ...ctx.metadata, decidingAgain: true, resumedAtGate: false, confirmationAsks: undefined };
    const again = await this.phases.run({ ...ctx, toolArgs: parked.modelArgs, metadata }, false);
    const outcomes = [...gate.outcomes, ...again.outcomes];
    if (!again.allow) return { ...again, outcomes };
    if (actionDigest(ctx.toolName, again.args) === actionDigest(ctx.toolName, ctx.toolArgs))
      return { ...gate, outcomes };
    return {
      allow: false,
      args: again.args,
      blockedBy: CONFIRMATION_GATE,
      error: CHAIN_CHANGED_REWRITE,
      wouldRequireConfirmation: false,
      outcomes,
    };
  }

  runPostToolUse(ctx: ToolCallContext & { toolResult: string }): Promise<{ result: string; outcomes: HookOutcome[] }> {
    if (this.post.hooks.length === 0) return Promise.resolve({ result: ctx.toolResult, outcomes: [] });
    this.attachAgent(ctx);
    return this.post.run(ctx, new HookChainRun(ctx.toolArgs, ctx.toolResult));
  }

  /** Lets PostToolUse hooks that care (audit) see calls that a PreToolUse hook blocked. Errors are recorded only. */
  runBlocked(ctx: ToolCallContext, blocked: { blockedBy: string; error: string }): Promise<HookOutcome[]> {
    if (this.blockedListeners.hooks.length === 0) return Promise.resolve([]);
    this.attachAgent(ctx);
    const run = new HookChainRun(ctx.toolArgs, undefined);
    run.blocked = blocked;
    run.note = `call blocked by ${blocked.blockedBy}`;
    return this.blockedListeners.run(ctx, run);
  }

  /**
   * UserPromptSubmit, PreModelCall, PostToolUseFailure or Stop on a text (prompt, error observation, answer): each
   * hook sees the text as the hooks before it left it.
   */
  runText(point: HookPoint, ctx: ToolCallContext, text: string): Promise<TextHookVerdict> {
    let chain = this.text.get(point);
    if (!chain)
      this.text.set(
        point,
        (chain = new HookChain(
          this.hooks.filter((h) => h.point === point),
          textPoint(point),
        )),
      );
    if (chain.hooks.length === 0) return Promise.resolve({ allow: true, text, additionalContext: [], outcomes: [] });
    this.attachAgent(ctx);
    return chain.run(ctx, new HookChainRun(ctx.toolArgs, text, []));
  }

  /** Hooks read the run's agent settings from the metadata; the runtime need not copy them into every call. */
  private attachAgent(ctx: ToolCallContext): void {
    if (this.agent && ctx.metadata.agent === undefined) ctx.metadata.agent = this.agent;
  }
}
