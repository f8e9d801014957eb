import { Injectable, Logger, Optional } from '@nestjs/common';
import { annotateSpan, Metrics, type RunEventMap } from '@warden/common';
import { blockedObservation, type PreToolUseVerdict, type ToolCallContext } from '@warden/hooks';
import { SqlParams } from '@warden/database';
import type { PendingToolCall } from '../runs/run.entity.js';
import type { ResolvedTool } from '../tools/tool-registry.js';
import type { LiveRun } from './live-run.js';
import { RunStore } from './run-store.js';
import { ToolCallStore, type StoredToolCallOutcome } from './tool-call.store.js';

/**
 * What a tool call ends as (ToolCallRunner): blocked by a hook, failed, a tool the agent does not have, or the
 * outcome of its execution — each stored with its `observation` event in one fenced write, counted by outcome.
 */
@Injectable()
export class ToolCallOutcomes {
  private readonly logger = new Logger(ToolCallOutcomes.name);

  constructor(
    private readonly toolCalls: ToolCallStore,
    private readonly runs: RunStore,
    @Optional() private readonly metrics?: Metrics,
  ) {}

  /** A call a hook blocked (or whose args no longer match its approval): the blocked hooks, then its outcome. */
  async blocked(
    live: LiveRun,
    call: PendingToolCall,
    ctx: ToolCallContext,
    verdict: PreToolUseVerdict,
    label: string,
  ): Promise<void> {
    const blockedBy = verdict.blockedBy ?? 'a hook';
    const error = verdict.error ?? 'blocked';
    await live.registry.runBlocked({ ...ctx, toolArgs: verdict.args }, { blockedBy, error });
    const content = blockedObservation(blockedBy, error);
    await this.store(
      live,
      call.call_id,
      { status: 'blocked', args: verdict.args, result: content, blockedBy, error, tool: call.tool },
      { call_id: call.call_id, tool: call.tool, args: verdict.args, content, blocked: true, blocked_by: blockedBy },
      label,
    );
  }

  /** A call that failed unexpectedly (not a hook's decision, not the run stopping): the model reads the error. */
  async failure(live: LiveRun, call: PendingToolCall, err: Error, label: string): Promise<void> {
    this.logger.error({ err, runId: live.run.id, callId: call.call_id }, 'tool call failed unexpectedly');
    const content = `Error: the tool call failed: ${err.message}`;
    await this.store(
      live,
      call.call_id,
      { status: 'failed', args: call.args, result: content, error: err.message, tool: call.tool },
      { call_id: call.call_id, tool: call.tool, args: call.args, content, blocked: false, ok: false },
      label,
    );
  }

  /** A call of a tool the agent does not have: the model reads which tools it can call. */
  async unknownTool(
    live: LiveRun,
    call: PendingToolCall,
    args: Record<string, unknown>,
    available: ResolvedTool[],
  ): Promise<void> {
    const known = available.map((t) => t.spec.name).join(', ') || 'none';
    const content = `Error: unknown tool "${call.tool}". Tools you can call: ${known}.`;
    await this.store(
      live,
      call.call_id,
      { status: 'failed', args, result: content, error: 'unknown tool', tool: call.tool },
      { call_id: call.call_id, tool: call.tool, args, content, blocked: false, ok: false },
      'other',
    );
  }

  /** Stores the call's outcome while this driver holds the run; a driver that lost it writes nothing and stops. */
  async store(
    live: LiveRun,
    callId: string,
    r: StoredToolCallOutcome,
    observation: RunEventMap['observation'],
    label: string,
  ): Promise<void> {
    const outcome = r.simulated ? 'simulated' : r.status;
    annotateSpan({ 'warden.tool.outcome': outcome, ...(r.blockedBy ? { 'warden.tool.blocked_by': r.blockedBy } : {}) });
    this.metrics?.toolCalls.labels(label, outcome).inc();
    // One transaction: the deferred hook events, the result, its in-flight audit row (completed with it, status and
    // duration included, so a crash before the audit batch lands leaves a completed row) and the `observation` event.
    const p = new SqlParams();
    const { precondition, ctes } = this.toolCalls.outcomeWrites(p, live, callId, r);
    const stored = await this.runs.writeRun(
      live,
      [{ type: 'observation', data: observation }],
      { where: precondition, ctes },
      p,
    );
    if (!stored.held) throw await this.toolCalls.lostOrGone(live, callId);
    live.observed.set(callId, r.result);
  }
}
