import { actionDigest, type PreToolUseVerdict, type ToolCallContext, type ToolCallMetadata } from '@warden/hooks';
import type { ParkedToolCall, PendingToolCall } from '../runs/run.entity.js';
import type { LiveRun } from './live-run.js';

/** What the call's hooks see; a parked call resumes with the args and asks it reached the gate with. */
export function callContext(
  live: LiveRun,
  call: PendingToolCall,
  toolMetadata: ToolCallMetadata,
  turn: PendingToolCall[] | undefined,
  parked: ParkedToolCall | undefined,
): ToolCallContext {
  const { run } = live;
  const metadata: ToolCallMetadata = {
    ...toolMetadata,
    agent: live.settings,
    conversationId: run.conversationId ?? undefined,
    parentRunId: run.parentRunId ?? undefined,
    turnCallIds: turn?.map((c) => c.call_id),
  };
  if (live.canPark) metadata.canPark = true;
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

/** An approval covers exactly one tool + args: true when there is none, or when it names exactly what will be sent. */
export function approvalCovers(verdict: PreToolUseVerdict, tool: string, args: Record<string, unknown>): boolean {
  return !verdict.approval || verdict.approval.argsDigest === actionDigest(tool, args);
}
