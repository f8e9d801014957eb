import { Injectable, Logger } from '@nestjs/common';
import { markAuditInterrupted } from '@warden/hooks';
import { DataSource } from 'typeorm';
import type { LiveRun } from './live-run.js';
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
  ) {}

  /**
   * Settles the calls a previous process left `running` when this run is resumed. A call still in its PreToolUse
   * hooks (no `executed_args` yet: nothing was sent) goes back to `pending`, so its hooks run again — the
   * confirmation gate then reuses its row. A call that had started executing is NOT repeated: the target may or may
   * not have acted on it, so it is marked `failed` with an observation that names its Idempotency-Key.
   */
  async settleInterrupted(live: LiveRun): Promise<void> {
    const runId = live.run.id;
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
}
