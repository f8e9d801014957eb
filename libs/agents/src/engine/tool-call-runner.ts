import { Injectable, Logger, Optional } from '@nestjs/common';
import { annotateSpan, Metrics, type RunEventMap } from '@warden/common';
import {
  actionDigest,
  ARGS_CHANGED_AFTER_APPROVAL,
  blockedObservation,
  CONFIRMATION_GATE,
  type PreToolUseVerdict,
  type ToolCallMetadata,
} from '@warden/hooks';
import { isTransientDatabaseError } from '@warden/database';
import { DataSource, type EntityManager } from 'typeorm';
import type { PendingToolCall, ToolCallStatus } from '../runs/run.entity.js';
import { ToolRegistry, type ResolvedTool } from '../tools/tool-registry.js';
import { RunSuspendedError, type LiveRun } from './live-run.js';
import { markAuditInterrupted, markExecuting } from './in-flight-audit.js';
import { toolFailureObservation } from './lifecycle-hooks.js';
import { holdsRun, LeaseLostError } from './run-fence.js';
import { RunStore } from './run-store.js';
import { ToolExecution } from './tool-execution.js';

/** What the model and the stream are told about a call that was executing when its server stopped. */
export function interruptedObservation(callId: string): string {
  return (
    `Error: the server stopped while this call was in flight; it was not retried, so it may or may not have taken effect — ` +
    `check the target system (Idempotency-Key ${callId}) before trying again.`
  );
}

/**
 * One tool call through the pipeline: claim (atomic update) -> PreToolUse (block / rewrite) -> execute ->
 * PostToolUse -> stored result -> `observation` event. The stored result is what the model reads next.
 */
@Injectable()
export class ToolCallRunner {
  private readonly logger = new Logger(ToolCallRunner.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly tools: ToolRegistry,
    private readonly execution: ToolExecution,
    private readonly runs: RunStore,
    @Optional() private readonly metrics?: Metrics,
  ) {}

  /** The durable records of a turn's calls, before any of them runs (in the caller's transaction when given). */
  async record(runId: string, calls: PendingToolCall[], m?: EntityManager): Promise<void> {
    for (const [position, c] of calls.entries()) {
      await (m ?? this.dataSource).query(
        `INSERT INTO tool_calls (run_id, call_id, position, tool, args, status) VALUES ($1, $2, $3, $4, $5, 'pending')
         ON CONFLICT (run_id, call_id) DO NOTHING`,
        [runId, c.call_id, position, c.tool, JSON.stringify(c.args)],
      );
    }
  }

  /**
   * Settles the calls a previous process left `running` when this run is resumed. A call still in its PreToolUse
   * hooks (no `executed_args` yet: nothing was sent) goes back to `pending`, so its hooks run again — the
   * confirmation gate then reuses its row. A call that had started executing is NOT repeated: the target may or may
   * not have acted on it, so it is marked `failed` with an observation that names its Idempotency-Key.
   */
  async settleInterrupted(live: LiveRun): Promise<void> {
    const runId = live.run.id;
    await this.dataSource.query(
      `UPDATE tool_calls SET status = 'pending', started_at = NULL WHERE run_id = $1 AND status = 'running' AND executed_args IS NULL AND ${holdsRun(2)}`,
      [runId, live.epoch],
    );
    const interrupted: Array<{ call_id: string; tool: string; executed_args: Record<string, unknown> }> = await this.dataSource.query(
      `SELECT call_id, tool, executed_args FROM tool_calls WHERE run_id = $1 AND status = 'running' ORDER BY position`,
      [runId],
    );
    for (const call of interrupted) {
      const content = interruptedObservation(call.call_id);
      const [, affected] = await this.dataSource.query(
        `UPDATE tool_calls SET status = 'failed', result = $3, full_result = $3, error = 'interrupted', finished_at = now()
         WHERE run_id = $1 AND call_id = $2 AND status = 'running' AND ${holdsRun(4)}`,
        [runId, call.call_id, content, live.epoch],
      );
      if (affected === 0) {
        await this.assertHeld(live);
        continue;
      }
      this.logger.warn(
        { runId, callId: call.call_id, tool: call.tool },
        'tool call was in flight when its server stopped; marked failed, not retried',
      );
      await markAuditInterrupted(this.dataSource, runId, call.call_id);
      await live.emit('tool_interrupted', {
        call_id: call.call_id,
        tool: call.tool,
        args: call.executed_args,
        idempotency_key: call.call_id,
        retried: false,
        message: content,
      });
      await live.emit('observation', {
        call_id: call.call_id,
        tool: call.tool,
        args: call.executed_args,
        content,
        blocked: false,
        ok: false,
        interrupted: true,
      });
    }
  }

  /** The observation text of each finished call (from memory when this driver stored them all). */
  async observations(live: LiveRun, callIds: string[]): Promise<Map<string, string>> {
    if (callIds.every((id) => live.observed.has(id))) return new Map(callIds.map((id) => [id, live.observed.get(id)!]));
    const runId = live.run.id;
    const rows: Array<{ call_id: string; status: ToolCallStatus; result: string | null }> = await this.dataSource.query(
      `SELECT call_id, status, result FROM tool_calls WHERE run_id = $1 AND call_id = ANY($2)`,
      [runId, callIds],
    );
    return new Map(rows.map((r) => [r.call_id, r.result ?? `Error: the outcome of this call is unknown (status ${r.status})`]));
  }

  async run(live: LiveRun, call: PendingToolCall, available: ResolvedTool[], turn?: PendingToolCall[]): Promise<void> {
    const { run } = live;
    // A call this driver just recorded is pending: its execution mark (or stored outcome) claims it. Any other call
    // is claimed first: one already handled is skipped (a resumed run never runs a call twice).
    if (!live.fresh.delete(call.call_id)) {
      const [claimed] = await this.dataSource.query(
        `UPDATE tool_calls SET status = 'running', started_at = now() WHERE run_id = $1 AND call_id = $2 AND status = 'pending' AND ${holdsRun(3)} RETURNING id`,
        [run.id, call.call_id, live.epoch],
      );
      if (claimed.length === 0) return this.assertHeld(live);
    }
    const tool = available.find((t) => t.spec.name === call.tool);
    const metadata: ToolCallMetadata = {
      ...this.tools.metadataFor(tool, call.args),
      agent: live.settings,
      conversationId: run.conversationId ?? undefined,
      parentRunId: run.parentRunId ?? undefined,
      turnCallIds: turn?.map((c) => c.call_id),
    };
    const ctx = {
      toolName: call.tool,
      toolArgs: call.args,
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
    try {
      const verdict = await live.registry.runPreToolUse(ctx);
      // Lost the run (or cancelled) while in the hooks: whoever holds it now decides; nothing is recorded here.
      if (live.abort.signal.aborted) throw live.abort.signal.reason;
      if (verdict.suspended !== undefined) {
        // A hook could not decide (the approval wait ended because this instance is stopping): nobody decided, so
        // nothing is recorded as blocked. The hooks run again when the run is resumed (the gate reuses its row).
        await this.dataSource.query(
          `UPDATE tool_calls SET status = 'pending', started_at = NULL WHERE run_id = $1 AND call_id = $2 AND status = 'running' AND ${holdsRun(3)}`,
          [run.id, call.call_id, live.epoch],
        );
        throw new RunSuspendedError(`call ${call.call_id} was left undecided by ${verdict.blockedBy ?? 'a hook'}: ${verdict.suspended}`);
      }
      // What will be sent, frozen here: nothing a hook still holds can change it after the check below.
      const args = structuredClone(verdict.args);
      if (verdict.allow && !approvalCovers(verdict, call.tool, args)) {
        this.logger.warn({ runId: run.id, callId: call.call_id, tool: call.tool }, 'args changed after approval; call blocked');
        Object.assign(verdict, { allow: false, args, blockedBy: CONFIRMATION_GATE, error: ARGS_CHANGED_AFTER_APPROVAL });
      }
      if (!verdict.allow) {
        const blockedBy = verdict.blockedBy ?? 'a hook';
        const error = verdict.error ?? 'blocked';
        await live.registry.runBlocked({ ...ctx, toolArgs: verdict.args }, { blockedBy, error });
        const content = blockedObservation(blockedBy, error);
        await this.store(
          live,
          call.call_id,
          { status: 'blocked', args: verdict.args, result: content, blockedBy, error, tool: call.tool },
          { call_id: call.call_id, tool: call.tool, args: verdict.args, content, blocked: true, blocked_by: blockedBy },
        );
        return;
      }
      if (!tool) {
        const known = available.map((t) => t.spec.name).join(', ') || 'none';
        const content = `Error: unknown tool "${call.tool}". Tools you can call: ${known}.`;
        await this.store(
          live,
          call.call_id,
          { status: 'failed', args, result: content, error: 'unknown tool', tool: call.tool },
          { call_id: call.call_id, tool: call.tool, args, content, blocked: false, ok: false },
        );
        return;
      }
      const executedMeta: ToolCallMetadata = { ...metadata, ...this.tools.metadataFor(tool, args) };
      // From here on the target may act: a resumed run must not repeat this call (see settleInterrupted).
      // Fenced: a driver that lost the run (or a cancelled run) never sends the request. Audited in flight.
      const simulated = this.execution.simulates(live, tool, args);
      const marked = await this.runs.write(live, (tx) => markExecuting(tx.m, live, call, args, executedMeta, simulated));
      if (!marked) throw await this.lostOrGone(live, call.call_id);
      const started = Date.now();
      const outcome = await this.execution.execute(live, call.call_id, tool, args);
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
      await this.store(
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
      );
    } catch (err) {
      // Not the call's outcome: the run stops here (shutdown, lease lost, cancel, database blip) and its next
      // driver settles the call (in-flight rule).
      if (live.abort.signal.aborted || err instanceof RunSuspendedError || err instanceof LeaseLostError || isTransientDatabaseError(err))
        throw err;
      this.logger.error({ err, runId: run.id, callId: call.call_id }, 'tool call failed unexpectedly');
      const content = `Error: the tool call failed: ${(err as Error).message}`;
      await this.store(
        live,
        call.call_id,
        { status: 'failed', args: call.args, result: content, error: (err as Error).message, tool: call.tool },
        { call_id: call.call_id, tool: call.tool, args: call.args, content, blocked: false, ok: false },
      );
    }
  }

  /** Stores the call's outcome while this driver holds the run; a driver that lost it writes nothing and stops. */
  private async store(
    live: LiveRun,
    callId: string,
    r: {
      status: ToolCallStatus;
      args: Record<string, unknown>;
      result: string;
      fullResult?: string;
      blockedBy?: string;
      error?: string;
      simulated?: boolean;
      tool?: string;
      http?: { status: number | null; durationMs: number };
    },
    observation: RunEventMap['observation'],
  ): Promise<void> {
    const outcome = r.simulated ? 'simulated' : r.status;
    annotateSpan({ 'warden.tool.outcome': outcome, ...(r.blockedBy ? { 'warden.tool.blocked_by': r.blockedBy } : {}) });
    if (r.tool) this.metrics?.toolCalls.labels(r.tool, outcome).inc();
    // One transaction: the deferred hook events, the result, its in-flight audit row (completed with it, status and
    // duration included, so a crash before the audit batch lands leaves a completed row) and the `observation` event.
    const stored = await this.runs.write(live, async (tx) => {
      const [row]: Array<{ stored: number }> = await tx.m.query(
        `WITH done AS (
         UPDATE tool_calls SET status = $3, executed_args = $4, result = $5, full_result = $6, blocked_by = $7, error = $8, simulated = $10,
                started_at = COALESCE(started_at, now()), finished_at = now()
          WHERE run_id = $1 AND call_id = $2 AND status IN ('pending', 'running') AND ${holdsRun(9)} RETURNING call_id),
       audited AS (
         UPDATE connector_call_logs SET outcome = 'completed', success = ($3 = 'done'), error = $8, status = COALESCE($11::int, status),
                duration_ms = COALESCE($12::int, duration_ms)
          WHERE run_id = $1::text AND call_id = $2 AND outcome = 'in_flight' AND EXISTS (SELECT 1 FROM done))
       SELECT count(*)::int AS stored FROM done`,
        [
          live.run.id,
          callId,
          r.status,
          JSON.stringify(r.args),
          r.result,
          r.fullResult ?? r.result,
          r.blockedBy ?? null,
          r.error ?? null,
          live.epoch,
          r.simulated ?? false,
          r.http?.status ?? null,
          r.http ? Math.round(r.http.durationMs) : null,
        ],
      );
      if (row.stored > 0) await this.runs.appendToStreams(live, 'observation', observation, tx);
      return row.stored;
    });
    if (stored === 0) throw await this.lostOrGone(live, callId);
    live.observed.set(callId, r.result);
  }

  /** Throws LeaseLostError (stopping the drive) unless this driver still holds the run at its epoch. */
  private async assertHeld(live: LiveRun): Promise<void> {
    const [row]: Array<{ held: boolean }> = await this.dataSource.query(
      `SELECT (lease_epoch = $2 AND status IN ('running', 'waiting')) AS held FROM agent_runs WHERE id = $1`,
      [live.run.id, live.epoch],
    );
    if (row?.held) return;
    const err = new LeaseLostError(live.run.id, 'a fenced tool-call write was refused');
    live.abort.abort(err);
    throw err;
  }

  /** The error for a guarded write that changed nothing: the lease is gone, or (held) the call was settled already. */
  private async lostOrGone(live: LiveRun, callId: string): Promise<Error> {
    await this.assertHeld(live);
    return new Error(`tool call ${callId} is no longer running`);
  }

  /** The calls of a run in the order they were made, with what was sent (or simulated) and what came back. */
  async listForRun(
    runId: string,
  ): Promise<
    Array<{
      call_id: string;
      tool: string;
      args: Record<string, unknown>;
      status: ToolCallStatus;
      simulated: boolean;
      result: string | null;
    }>
  > {
    return this.dataSource.query(
      `SELECT call_id, tool, COALESCE(executed_args, args) AS args, status, simulated, result FROM tool_calls
        WHERE run_id = $1 ORDER BY created_at, position`,
      [runId],
    );
  }
}

/** An approval covers exactly one tool + args: true when there is none, or when it names exactly what will be sent. */
function approvalCovers(verdict: PreToolUseVerdict, tool: string, args: Record<string, unknown>): boolean {
  return !verdict.approval || verdict.approval.argsDigest === actionDigest(tool, args);
}
