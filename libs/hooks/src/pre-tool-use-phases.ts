import { canonicalJson } from '@warden/common';
import { HookChain, HookChainRun } from './hook-chain.js';
import { NO_CONTEXT } from './hook-chain-run.js';
import { PRE_TOOL_USE, type PreToolUseVerdict } from './hook-chain-points.js';
import type { ToolCallContext } from './hook-invocation.js';
import { isThenable } from './hook-outcome-record.js';
import type { HookChainPoint } from './hook-chain.types.js';

/** Why the decide pass stops a call when a hook that decides again would change the final args. */
export const FINAL_ARGS_CHANGED =
  'would change the final args: it decided on the args before a later hook rewrote them, ' +
  'and does not accept what that hook made of them; the call was not sent';
/** The detail of an outcome of the decide pass (traces, dry runs): the hook decided again, on the final args. */
export const DECIDED_ON_FINAL_ARGS = 'decided again on the final args';

type Verdict = PreToolUseVerdict;

/**
 * The decide pass: a hook's deciding outcomes count as in the transform pass (block, ask, suspend, failure), on the
 * final args, which nothing changes any more. A hook that changed the args in the transform pass (`changedBy`) is a
 * transform of this call: its rewrite happened there, in priority order, and what it would make of the final args
 * is not applied. A hook that left them as they were and would now change them stops the call (FINAL_ARGS_CHANGED):
 * it accepted args that a later hook turned into args it does not accept as they are.
 */
export const DECIDE_ON_FINAL: HookChainPoint<Verdict> = {
  ...PRE_TOOL_USE,
  apply(result, entry, run, ctx) {
    const args: unknown = result.modifiedArgs;
    if (args === undefined) return PRE_TOOL_USE.apply(result, entry, run, ctx);
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      throw new Error('modifiedArgs must be an object');
    const kind = PRE_TOOL_USE.apply({ ...result, modifiedArgs: undefined }, entry, run, ctx);
    if (kind === 'block' || run.changedBy?.has(entry) || canonicalJson(args) === canonicalJson(run.args)) return kind;
    run.blockReason = FINAL_ARGS_CHANGED;
    return 'block';
  },
};

/**
 * PreToolUse in its phases (docs/authorization.md "Phases"), the one place that orders them for every path (chat,
 * API, workflows, evals, dry runs, a resumed call whose chain changed):
 *
 * 1. **transform** — every hook before the gate in run order (agent band, `args_schema`, org band, `args_schema`):
 *    rewrites carried forward; the first block stops the call (a block is never undone by a later rewrite).
 * 2. **decide** — when a hook's rewrite changed the args (`HookChainRun.lastChange`), every hook that ran (or was
 *    skipped by its condition) before that rewrite saw other args than the final ones: those hooks run again on the
 *    final args (DECIDE_ON_FINAL), their asks of the transform pass are replaced by their asks on the final args,
 *    and a decider that would now change the args stops the call. Rate limits do not count twice
 *    (`metadata.decidingAgain`).
 * 3. **the gate** (`runsLast`) — the tier and the approver policy on the final args.
 *
 * Every pass appends to one outcome list. When every hook returns synchronously no pass costs a promise.
 */
export class PreToolUsePhases {
  /** The decide chains, by the number of hooks they re-run (a prefix of `transform`), built when first needed. */
  private readonly decideChains = new Map<number, HookChain<Verdict>>();

  constructor(
    private readonly transform: HookChain<Verdict>,
    private readonly gate: HookChain<Verdict>,
  ) {}

  /** The call's verdict: transform, decide, then (`withGate`) the gate. ctx.toolArgs are the model's args. */
  run(ctx: ToolCallContext, withGate: boolean): Promise<Verdict> {
    try {
      const run = new HookChainRun(ctx.toolArgs, undefined);
      const transformed = this.transform.start(ctx, run);
      const verdict = isThenable(transformed)
        ? transformed.then((v) => this.afterTransform(ctx, run, v, withGate))
        : this.afterTransform(ctx, run, transformed, withGate);
      return verdict instanceof Promise ? verdict : Promise.resolve(verdict);
    } catch (err) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what a hook or emitter threw, as is
      return Promise.reject(err);
    }
  }

  private afterTransform(
    ctx: ToolCallContext,
    run: HookChainRun,
    verdict: Verdict,
    withGate: boolean,
  ): Verdict | Promise<Verdict> {
    if (!verdict.allow) return verdict;
    const stale = run.lastChange === undefined ? 0 : this.transform.hooks.indexOf(run.lastChange);
    if (stale <= 0) return withGate ? this.atGate(ctx, verdict) : verdict;
    const decided = this.decide(ctx, stale, verdict, run.changedBy);
    if (!withGate) return decided;
    return isThenable(decided) ? decided.then((d) => this.atGate(ctx, d)) : this.atGate(ctx, decided);
  }

  /** The decide pass: the first `stale` hooks of the transform pass again, on the final args. */
  private decide(
    ctx: ToolCallContext,
    stale: number,
    verdict: Verdict,
    changedBy: HookChainRun['changedBy'],
  ): Verdict | Promise<Verdict> {
    let chain = this.decideChains.get(stale);
    if (!chain)
      this.decideChains.set(stale, (chain = new HookChain(this.transform.hooks.slice(0, stale), DECIDE_ON_FINAL)));
    const again = new Set(chain.hooks.map((h) => h.name));
    const asks = ctx.metadata.confirmationAsks?.filter((a) => !again.has(a.hook));
    const metadata = { ...ctx.metadata, decidingAgain: true, confirmationAsks: asks };
    const run = carried(verdict);
    run.note = DECIDED_ON_FINAL_ARGS;
    run.changedBy = changedBy;
    const keepAsks = (v: Verdict): Verdict => {
      ctx.metadata.confirmationAsks = metadata.confirmationAsks?.length ? metadata.confirmationAsks : undefined;
      return v;
    };
    const decided = chain.start({ ...ctx, toolArgs: verdict.args, metadata }, run);
    return isThenable(decided) ? decided.then(keepAsks) : keepAsks(decided);
  }

  private atGate(ctx: ToolCallContext, verdict: Verdict): Verdict | Promise<Verdict> {
    if (!verdict.allow || this.gate.hooks.length === 0) return verdict;
    return this.gate.start(ctx, carried(verdict));
  }
}

/** A run for the next pass of a call: the args the last pass left, its outcome list and what it noted. */
function carried(verdict: Verdict): HookChainRun {
  const run = new HookChainRun(verdict.args, undefined, NO_CONTEXT, verdict.outcomes);
  run.wouldRequireConfirmation = verdict.wouldRequireConfirmation;
  return run;
}
