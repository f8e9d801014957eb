import { Injectable, Logger } from '@nestjs/common';
import type { PreToolUseVerdict, ToolCallContext, ToolCallMetadata } from '@warden/hooks';
import { isTransientDatabaseError, SqlParams } from '@warden/database';
import type { EntityManager } from 'typeorm';
import type { ParkedToolCall, PendingToolCall } from '../runs/run.entity.js';
import { ToolRegistry, type ResolvedTool } from '../tools/tool-registry.js';
import { RunSuspendedError, type LiveRun } from './live-run.js';
import { executionMarkWrites } from './in-flight-audit.js';
import { toolFailureObservation } from './lifecycle-hooks.js';
import { LeaseLostError } from './run-fence.js';
import { RunStore } from './run-store.js';
import { callContext } from './tool-call-context.js';
import { decideCall } from './tool-call-decision.js';
import { ToolExecution } from './tool-execution.js';
import { ToolCallOutcomes } from './tool-call-outcomes.js';
import { ToolCallStore, type ListedToolCall } from './tool-call.store.js';

export { interruptedObservation } from './tool-call-recovery.js';

/**
 * One tool call through the pipeline: claim (atomic update) -> PreToolUse (block / rewrite) -> execute ->
 * PostToolUse -> stored result -> `observation` event. The stored result is what the model reads next.
 */
@Injectable()
export class ToolCallRunner {
  private readonly logger = new Logger(ToolCallRunner.name);

  constructor(
    private readonly toolCalls: ToolCallStore,
    private readonly tools: ToolRegistry,
    private readonly execution: ToolExecution,
    private readonly runs: RunStore,
    private readonly outcomes: ToolCallOutcomes,
  ) {}

  /** The durable records of a turn's calls, before any of them runs (in the caller's transaction when given). */
  async record(runId: string, calls: PendingToolCall[], m?: EntityManager): Promise<void> {
    await this.toolCalls.record(runId, calls, m);
  }

  /** The same records as a write of `RunStore.writeRun` (with the turn's state and events, one statement). */
  recordWrite(p: SqlParams, runId: string, calls: PendingToolCall[]): [string, string] {
    return this.toolCalls.recordWrite(p, runId, calls);
  }

  /** The observation text of each finished call (from memory when this driver stored them all). */
  async observations(live: LiveRun, callIds: string[]): Promise<Map<string, string>> {
    // `?? ''` never applies: every id was just found in `observed`.
    if (callIds.every((id) => live.observed.has(id)))
      return new Map(callIds.map((id) => [id, live.observed.get(id) ?? '']));
    const rows = await this.toolCalls.results(live.run.id, callIds);
    return new Map(
      rows.map((r) => [r.call_id, r.result ?? `Error: the outcome of this call is unknown (status ${r.status})`]),
    );
  }

  /**
   * `parked`: the call was parked at the gate and resumes there, with the args the gate saw. Returns the call's park
   * when the gate parks it (the run then parks); nothing else is recorded for it.
   */
  async run(
    live: LiveRun,
    call: PendingToolCall,
    available: ResolvedTool[],
    turn?: PendingToolCall[],
    parked?: ParkedToolCall,
  ): Promise<ParkedToolCall | undefined> {
    // A call this driver just recorded is pending: its execution mark (or stored outcome) claims it. Any other call
    // is claimed first: one already handled is skipped (a resumed run never runs a call twice).
    const fresh = live.fresh.delete(call.call_id);
    if (!fresh && !(await this.toolCalls.claim(live, call.call_id))) {
      await this.toolCalls.assertHeld(live);
      return undefined;
    }
    const tool = available.find((t) => t.spec.name === call.tool);
    // The metric label: a tool the agent has (bounded by its configuration); a name the model invented is "other".
    const label = tool ? call.tool : 'other';
    const ctx = callContext(live, call, this.tools.metadataFor(tool, call.args), turn, parked, fresh);
    try {
      const decided = await decideCall({
        live,
        call,
        ctx,
        parked,
        fresh,
        toolCalls: this.toolCalls,
        logger: this.logger,
      });
      if ('park' in decided) return decided.park;
      const { verdict, args } = decided;
      if (!verdict.allow) await this.outcomes.blocked(live, call, ctx, verdict, label);
      else if (!tool) await this.outcomes.unknownTool(live, call, args, available);
      else await this.execute(live, call, tool, args, ctx, verdict);
    } catch (err) {
      // Not the call's outcome: the run stops here (shutdown, lease lost, cancel, database blip) and its next
      // driver settles the call (in-flight rule).
      if (
        live.abort.signal.aborted ||
        err instanceof RunSuspendedError ||
        err instanceof LeaseLostError ||
        isTransientDatabaseError(err)
      )
        throw err;
      await this.outcomes.failure(live, call, err as Error, label);
    }
    return undefined;
  }

  /** Marks the call executing (fenced, audited in flight), sends it, runs the PostToolUse hooks, stores the outcome. */
  private async execute(
    live: LiveRun,
    call: PendingToolCall,
    tool: ResolvedTool,
    args: Record<string, unknown>,
    ctx: ToolCallContext,
    verdict: PreToolUseVerdict,
  ): Promise<void> {
    const executedMeta: ToolCallMetadata = { ...ctx.metadata, ...this.tools.metadataFor(tool, args) };
    // From here on the target may act: a resumed run must not repeat this call (see ToolCallRecovery).
    // Fenced: a driver that lost the run (or a cancelled run) never sends the request. Audited in flight.
    const simulated = this.execution.simulates(live, tool, args, (ctx.metadata.confirmationAsks?.length ?? 0) > 0);
    const p = new SqlParams();
    // Read before the writes are built: the mark records the call of a turn not written yet (one statement for both).
    const recordsTurn = live.turn !== undefined;
    const ctes = executionMarkWrites(p, live, call, args, executedMeta, simulated);
    const marked = await this.runs.writeRun(live, [], { ctes, recordsTurn }, p);
    if (!marked.held) throw this.runs.leaseLost(live);
    if (marked.counts.marked === 0) throw await this.toolCalls.lostOrGone(live, call.call_id);
    const started = Date.now();
    const outcome = await this.execution.execute(live, call.call_id, tool, args, simulated);
    const durationMs = Date.now() - started;
    const postCtx = {
      ...ctx,
      toolArgs: args,
      metadata: {
        ...executedMeta,
        simulated: outcome.simulated,
        execution: { status: outcome.status, durationMs, success: outcome.ok, error: outcome.error },
      },
    };
    const observed = outcome.ok ? outcome.content : await toolFailureObservation(live, postCtx, outcome.content);
    const post = await live.registry.runPostToolUse({ ...postCtx, toolResult: observed });
    // Approved with changes: the model reads that the approver changed its call (and to what) with the result.
    if (verdict.approval?.note) post.result = `${verdict.approval.note}\n${post.result}`;
    await this.outcomes.store(
      live,
      call.call_id,
      {
        status: outcome.ok ? 'done' : 'failed',
        args,
        result: post.result,
        fullResult: outcome.full,
        error: outcome.error,
        simulated: outcome.simulated,
        tool: call.tool,
        http: { status: outcome.status ?? null, durationMs },
      },
      {
        call_id: call.call_id,
        tool: call.tool,
        args,
        content: post.result,
        blocked: false,
        ok: outcome.ok,
        ...(outcome.simulated ? { simulated: true } : {}),
      },
      call.tool,
    );
  }

  /** The calls of a run in the order they were made, with what was sent (or simulated) and what came back. */
  listForRun(runId: string): Promise<ListedToolCall[]> {
    return this.toolCalls.listForRun(runId);
  }
}
