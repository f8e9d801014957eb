import type { Logger } from '@nestjs/common';
import { CONFIRMATION_GATE, type PreToolUseVerdict, type ToolCallContext } from '@warden/hooks';
import type { ParkedToolCall, PendingToolCall } from '../runs/run.entity.js';
import { RunSuspendedError, type LiveRun } from './live-run.js';
import { sendRefusal } from './tool-call-context.js';
import type { ToolCallStore } from './tool-call.store.js';

// What becomes of one claimed tool call before anything is sent (ToolCallRunner.run): the PreToolUse verdict (or
// the gate's, for a call parked there), a park, a suspension, and the kernel's last check of the args to be sent.

/** Either the call parks at the gate (the run parks), or the verdict with the args that would be sent, frozen. */
export type CallDecision = { park: ParkedToolCall } | { verdict: PreToolUseVerdict; args: Record<string, unknown> };

export interface DecidingCall {
  live: LiveRun;
  call: PendingToolCall;
  ctx: ToolCallContext;
  /** The call was parked at the gate and resumes there, with the args the gate saw. */
  parked?: ParkedToolCall;
  /** Recorded by this driver (not claimed): nothing to release when it parks. */
  fresh: boolean;
  toolCalls: ToolCallStore;
  logger: Logger;
}

export async function decideCall(d: DecidingCall): Promise<CallDecision> {
  const { live, call, ctx, parked } = d;
  const verdict = parked
    ? await live.registry.resumeAtGate(ctx, { modelArgs: call.args, chain: parked.chain })
    : await live.registry.runPreToolUse(ctx);
  // Lost the run (or cancelled) while in the hooks: whoever holds it now decides; nothing is recorded here.
  if (live.abort.signal.aborted) throw live.abort.signal.reason;
  if (verdict.parked !== undefined) {
    // Waiting for a decision without a process: the call is pending again, and resumes at the gate.
    if (!d.fresh) await d.toolCalls.release(live, call.call_id);
    return { park: parkedCall(live, call, ctx, verdict.parked, verdict.args) };
  }
  if (verdict.suspended !== undefined) {
    // A hook could not decide (the approval wait ended because this instance is stopping): nobody decided, so
    // nothing is recorded as blocked. The hooks run again when the run is resumed (the gate reuses its row).
    await d.toolCalls.release(live, call.call_id);
    throw new RunSuspendedError(
      `call ${call.call_id} was left undecided by ${verdict.blockedBy ?? 'a hook'}: ${verdict.suspended}`,
    );
  }
  // What will be sent, frozen here: nothing a hook still holds can change it after the check below.
  const args = structuredClone(verdict.args);
  await lastCheck(d, verdict, args);
  return { verdict, args };
}

/** The call's park as the run stores it, frozen: a resumed call sees these args whether rebuilt or kept here. */
function parkedCall(
  live: LiveRun,
  call: PendingToolCall,
  ctx: ToolCallContext,
  park: NonNullable<PreToolUseVerdict['parked']>,
  verdictArgs: Record<string, unknown>,
): ParkedToolCall {
  const asks = ctx.metadata.confirmationAsks;
  const { confirmationId, expiresAt } = park;
  return {
    call_id: call.call_id,
    confirmation_id: confirmationId,
    args: structuredClone(verdictArgs),
    chain: live.registry.chainDigest,
    ...(expiresAt ? { expires_at: expiresAt } : {}),
    ...(asks?.length ? { asks: structuredClone(asks) } : {}),
  };
}

/** An approver's edit decided again, then the approval checked against exactly `args`; a failure blocks `verdict`. */
async function lastCheck(d: DecidingCall, verdict: PreToolUseVerdict, args: Record<string, unknown>): Promise<void> {
  const { live, call, ctx } = d;
  // An approver's edit re-enters *decide*: the deciding hooks (org policies included) run on exactly these args.
  if (verdict.allow && verdict.approval?.edited) {
    const again = await live.registry.redecide(ctx, args);
    if (!again.allow) Object.assign(verdict, { allow: false, args, blockedBy: again.blockedBy, error: again.error });
  }
  const refusal = verdict.allow ? sendRefusal(verdict, call.tool, args) : null;
  if (refusal) {
    d.logger.warn(
      { runId: live.run.id, callId: call.call_id, tool: call.tool, refusal },
      'gated call not authorized; blocked',
    );
    Object.assign(verdict, { allow: false, args, blockedBy: CONFIRMATION_GATE, error: refusal });
  }
}
