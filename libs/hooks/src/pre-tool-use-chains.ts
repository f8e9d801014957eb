import { canonicalJson } from '@warden/common';
import { actionDigest } from './builtin/audit/canonical-json.js';
import { HookChain, HookChainRun, type RegisteredHook } from './hook-chain.js';
import { PRE_TOOL_USE, type PreToolUseVerdict } from './hook-chain-points.js';
import type { ToolCallContext } from './hook-invocation.js';
import type { ToolArgs } from './hook.types.js';
import { PreToolUsePhases } from './pre-tool-use-phases.js';

// PreToolUse of one run, split from HookRegistry because a call is decided on three paths that share its chains: a
// live call, an approver's edit decided again, a parked call resumed at the gate.

/** Why a call is blocked when the args to be sent are not the ones its approval covers. */
export const ARGS_CHANGED_AFTER_APPROVAL = 'args changed after approval: the call was not sent';
/** Why an approver's edit is not sent when a hook would still rewrite it: the approval covers exactly the edit. */
export const EDIT_NOT_FINAL =
  "a hook would change the approver's edited args, so the approval does not cover what would be sent";
/** The name the confirmation gate blocks under (also when the runtime's own re-check of an approval fails). */
export const CONFIRMATION_GATE = 'confirmation_gate';
/**
 * Why a resumed call is denied when the hooks in force now turn the model's call into another than the approved one.
 */
export const CHAIN_CHANGED_REWRITE =
  'the hooks changed while the call waited for its approval ' +
  'and now make it a different call than the one approved: it was not sent';

/** Told of each PreToolUse decision on a live call (not a dry run, a resume or a second decision); must not throw. */
export type DecisionObserver = (ctx: ToolCallContext, modelArgs: ToolArgs, verdict: PreToolUseVerdict) => void;

/** A call parked at the gate, as it resumes: the model's own args, and the chain it was parked under. */
export interface ParkedCall {
  modelArgs: ToolArgs;
  /** HookRegistry.chainDigest when it parked (absent for calls parked before digests were recorded). */
  chain?: string;
}

/** The PreToolUse chains of one run; HookRegistry attaches the agent to ctx before calling any of them. */
export class PreToolUseChains {
  readonly all: HookChain<PreToolUseVerdict>;
  /** The PreToolUse hooks that run last (the confirmation gate): where a parked call resumes. */
  private readonly gate: HookChain<PreToolUseVerdict>;
  /** Transform, decide, gate: how every PreToolUse call is decided (docs/authorization.md "Phases"). */
  private readonly phases: PreToolUsePhases;
  observer: DecisionObserver | undefined;

  /** @param chainDigest see HookRegistry.chainDigest. */
  constructor(
    hooks: RegisteredHook[],
    private readonly chainDigest: string,
  ) {
    this.all = new HookChain(hooks, PRE_TOOL_USE);
    this.gate = new HookChain(
      this.all.hooks.filter((h) => h.runsLast),
      PRE_TOOL_USE,
    );
    // The hooks before the gate: what decides a parked call again when the chain changed while it waited.
    const beforeGate = new HookChain(
      this.all.hooks.filter((h) => !h.runsLast),
      PRE_TOOL_USE,
    );
    this.phases = new PreToolUsePhases(beforeGate, this.gate);
  }

  /** See HookRegistry.runPreToolUse. */
  run(ctx: ToolCallContext, atGate: boolean): Promise<PreToolUseVerdict> {
    if (atGate) return this.runGate(ctx);
    if (this.all.hooks.length === 0)
      return Promise.resolve({ allow: true, args: ctx.toolArgs, wouldRequireConfirmation: false, outcomes: [] });
    const decided = this.phases.run(ctx, true);
    const observer = this.observer;
    if (!observer || ctx.metadata.dryRun || ctx.metadata.decidingAgain) return decided;
    const modelArgs = ctx.toolArgs;
    return decided.then((verdict) => {
      observer(ctx, modelArgs, verdict);
      return verdict;
    });
  }

  /** Only the gate, for a call parked there; with no gate any more nothing may let it through undecided. */
  private runGate(ctx: ToolCallContext): Promise<PreToolUseVerdict> {
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

  /** See HookRegistry.redecide (`again`: ctx with the edited args, asks cleared). */
  async redecide(again: ToolCallContext, args: ToolArgs): Promise<PreToolUseVerdict> {
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

  /** See HookRegistry.resumeAtGate. */
  async resumeAtGate(ctx: ToolCallContext, parked: ParkedCall): Promise<PreToolUseVerdict> {
    const gate = await this.runGate(ctx);
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
}
