import { Inject, Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type { Bus } from '@warden/common';
import { expireUnrecordedConfirmations, LOST_TURN_APPROVALS_EXPIRED } from '@warden/confirmations/run-port';
import { markAuditInterrupted } from '@warden/hooks';
import { DataSource } from 'typeorm';
import type { RunState } from '../runs/run.entity.js';
import type { LiveRun } from './live-run.js';
import { holdsRun } from './run-fence.js';
import { ToolCallStore } from './tool-call.store.js';

/** What the model and the stream are told about a call that was executing when its server stopped. */
export function interruptedObservation(callId: string): string {
  return (
    `Error: the server stopped while this call was in flight; it was not retried, ` +
    `so it may or may not have taken effect — ` +
    `check the target system (Idempotency-Key ${callId}) before trying again.`
  );
}

/** Settles, on resume, the tool calls a previous process left `running` (the in-flight rule). */
@Injectable()
export class ToolCallRecovery {
  private readonly logger = new Logger(ToolCallRecovery.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly store: ToolCallStore,
    @Inject(EventEmitter2) private readonly bus: Bus,
  ) {}

  /**
   * Settles the calls a previous process left `running` when this run is resumed. A call still in its PreToolUse
   * hooks (no `executed_args` yet: nothing was sent) goes back to `pending`, so its hooks run again — the
   * confirmation gate then reuses its row. A call that had started executing is NOT repeated: the target may or may
   * not have acted on it, so it is marked `failed` with an observation that names its Idempotency-Key.
   */
  async settleInterrupted(live: LiveRun): Promise<void> {
    const runId = live.run.id;
    await this.expireLostTurnApprovals(live);
    await this.store.releaseUnsent(live);
    for (const call of await this.store.running(runId)) {
      const content = interruptedObservation(call.call_id);
      if (!(await this.store.markInterrupted(live, call.call_id, content))) {
        await this.store.assertHeld(live);
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

  /**
   * A run resumed before its model turn (another process stopped in that turn) redoes the turn: approvals asked for
   * the lost turn's calls — asked, then the process stopped before the turn was written — can never be acted on and
   * expire (confirmations' run port). Only then: a run resumed in its tool turn has its calls recorded.
   */
  private async expireLostTurnApprovals(live: LiveRun): Promise<void> {
    const state = live.run.state;
    if (state.phase !== 'llm' && state.phase !== 'start') return;
    const expired = await this.dataSource.transaction((m) =>
      expireUnrecordedConfirmations(m, live.run.id, recordedCallIds(state), { sql: holdsRun(3), params: [live.epoch] }),
    );
    if (expired.length === 0) return;
    this.logger.warn(
      { runId: live.run.id, confirmations: expired },
      'approvals asked in a model turn lost with its server expired; the run asks again',
    );
    this.bus.emit(LOST_TURN_APPROVALS_EXPIRED, { confirmationIds: expired });
  }
}

/** The calls of every model turn the run's state recorded. */
function recordedCallIds(state: RunState): string[] {
  return state.messages.flatMap((m) => ('tool_calls' in m ? (m.tool_calls ?? []).map((c) => c.id) : []));
}
