import { HookChain, HookChainRun, type RegisteredHook } from './hook-chain.js';
import { BLOCKED_CALL, POST_TOOL_USE, SESSION_START, type PreToolUseVerdict } from './hook-chain-points.js';
import { textPoint, type TextHookVerdict } from './text-hook-points.js';
import type { ToolCallContext } from './hook-invocation.js';
import { PreToolUseChains, type DecisionObserver, type ParkedCall } from './pre-tool-use-chains.js';
import { HookPoint, type AgentHookSettings, type HookOutcome, type PostToolUseHook } from './hook.types.js';

export { HookTimeoutError, type RegisteredHook } from './hook-chain.js';
export type { PreToolUseVerdict } from './hook-chain-points.js';
export { HookInvocation, type ToolCallContext } from './hook-invocation.js';
export {
  ARGS_CHANGED_AFTER_APPROVAL,
  CHAIN_CHANGED_REWRITE,
  CONFIRMATION_GATE,
  EDIT_NOT_FINAL,
  type DecisionObserver,
  type ParkedCall,
} from './pre-tool-use-chains.js';

export const DEFAULT_HOOK_TIMEOUT_MS = 5000;

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
 * The hooks attached to one run: one HookChain per point (PreToolUse: PreToolUseChains), built once, run with the
 * semantics of DESIGN.md (see HookChain). Cheap to build and to run: no database, no timer for hooks that return
 * synchronously.
 */
export class HookRegistry {
  private readonly pre: PreToolUseChains;
  private readonly post: HookChain<{ result: string; outcomes: HookOutcome[] }>;
  private readonly sessionStart: HookChain<{ additionalContext: string[]; outcomes: HookOutcome[] }>;
  private readonly blockedListeners: HookChain<HookOutcome[]>;
  private readonly text = new Map<HookPoint, HookChain<TextHookVerdict>>();

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
    this.pre = new PreToolUseChains(at(HookPoint.PreToolUse), chainDigest);
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
    this.pre.observer = observer;
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
        return this.pre.all.hooks;
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
    const attached = this.pre.all.hooks.filter((h) => !h.checksArgs);
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
    this.attachAgent(ctx);
    return this.pre.run(ctx, atGate);
  }

  /**
   * An approver changed the args after the chain decided (approve with changes): the call re-enters *decide* on
   * them — every PreToolUse hook but the gate runs again on these args, in its phases (transform, decide; org
   * policies included). The edit must be a fixed point: a hook that would block it or a chain that would leave other
   * args stops the call (docs/authorization.md).
   */
  redecide(ctx: ToolCallContext, args: ToolCallContext['toolArgs']): Promise<PreToolUseVerdict> {
    const again = { ...ctx, toolArgs: args, metadata: { ...ctx.metadata, confirmationAsks: undefined } };
    this.attachAgent(again);
    return this.pre.redecide(again, args);
  }

  /**
   * A call parked at the gate resumes (ctx.toolArgs: the args the gate saw). The gate settles its decision; when the
   * chain in force now is not the one it parked under, the hooks before the gate then decide the model's call again
   * (`decidingAgain`): a block stands, and a rewrite that no longer gives the approved args denies it. So whichever
   * instance resumes it, the chain in force decides (DESIGN.md "Authorization").
   */
  resumeAtGate(ctx: ToolCallContext, parked: ParkedCall): Promise<PreToolUseVerdict> {
    this.attachAgent(ctx);
    return this.pre.resumeAtGate(ctx, parked);
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
