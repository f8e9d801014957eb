import { authorize } from '@warden/policy';
import {
  actionDigest,
  ARGS_CHANGED_AFTER_APPROVAL,
  type PreToolUseVerdict,
  type ToolCallContext,
  type ToolCallMetadata,
} from '@warden/hooks';
import type { ParkedToolCall, PendingToolCall } from '../runs/run.entity.js';
import type { LiveRun } from './live-run.js';

/** What the call's hooks see; a parked call resumes with the args and asks it reached the gate with. */
export function callContext(
  live: LiveRun,
  call: PendingToolCall,
  toolMetadata: ToolCallMetadata,
  turn: PendingToolCall[] | undefined,
  parked: ParkedToolCall | undefined,
  fresh = false,
): ToolCallContext {
  const { run } = live;
  const metadata: ToolCallMetadata = {
    ...toolMetadata,
    agent: live.settings,
    conversationId: run.conversationId ?? undefined,
    memberMessage: run.message,
    parentRunId: run.parentRunId ?? undefined,
    turnCallIds: turn?.map((c) => c.call_id),
  };
  if (live.canPark) metadata.canPark = true;
  // A fresh call that is not parked was recorded in this driver's model turn: its id is new (newCallId).
  if (fresh && !parked) metadata.newInTurn = true;
  if (parked) {
    metadata.resumedAtGate = true;
    if (parked.asks) metadata.confirmationAsks = [...parked.asks];
  }
  return {
    toolName: call.tool,
    toolArgs: parked?.args ?? call.args,
    agentId: run.agentId,
    userId: run.userId,
    orgId: run.orgId,
    runId: run.id,
    callId: call.call_id,
    surface: run.surface,
    metadata,
    emit: live.emit,
    signal: live.abort.signal,
  };
}

/**
 * The kernel's last check before a gated call leaves (docs/authorization.md): null when it may be sent. A call the
 * gate let through with an approval is sent only when that approval names exactly these args and the grants it
 * holds satisfy the policy in force evaluated on them (libs/policy `authorize`).
 */
export function sendRefusal(verdict: PreToolUseVerdict, tool: string, args: Record<string, unknown>): string | null {
  const approval = verdict.approval;
  if (!approval) return null;
  if (approval.argsDigest !== actionDigest(tool, args)) return ARGS_CHANGED_AFTER_APPROVAL;
  const authorized = authorize({ action: { tool, args }, policy: approval.policy, grants: approval.grants });
  return authorized.decision === 'allow' ? null : `not authorized: ${authorized.reason}`;
}
