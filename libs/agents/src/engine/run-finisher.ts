import { Inject, Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type { Bus } from '@warden/common';
import { SqlParams } from '@warden/database';
import { RunEventsService } from '../runs/run-events.service.js';
import type { AgentRun, RunState } from '../runs/run.entity.js';
import { RUN_FINISHED, type LiveRun } from './live-run.js';
import { runEndingWrite, writeRunEnding, type RunResult } from './run-ending.js';
import { RunStore } from './run-store.js';
import { flushDeferred } from './run-streams.js';
import type { FinalRunStatus } from './run-transitions.js';

/**
 * Ends runs: whoever ends one (its driver, a cancel, a refused start), only the first caller wins, and the winner
 * announces it (RUN_FINISHED). The ending's SQL is run-ending.ts's; a driver's goes through RunStore.writeRun.
 */
@Injectable()
export class RunFinisher {
  constructor(
    private readonly store: RunStore,
    private readonly events: RunEventsService,
    @Inject(EventEmitter2) private readonly bus: Bus,
  ) {}

  /**
   * Moves an active run to its final status and writes its closing events (`error` / `answer`, then `done`), in one
   * transaction (with the final `state` when given, and, for a cancel, the expiry of its pending confirmations).
   * Only the first caller wins, so `done` is written exactly once whoever ends the run (driver or cancel); a driver
   * passes its `epoch` and wins only while it still holds the run.
   */
  async finish(
    run: AgentRun,
    status: FinalRunStatus,
    result: RunResult,
    fence: { epoch?: number; state?: RunState; live?: LiveRun } = {},
  ): Promise<boolean> {
    const live = fence.live;
    if (live?.ancestors.length === 0 && status !== 'cancelled') {
      // A driver ending its own run: one statement (its deferred events, the final status, the conversation, the
      // closing events).
      const p = new SqlParams();
      const ending = runEndingWrite(p, run, { status, result, state: fence.state });
      const { held } = await this.store.writeRun(live, ending.events, ending.write, p);
      if (held) this.bus.emit(RUN_FINISHED, { runId: run.id, orgId: run.orgId, status, surface: run.surface });
      return held;
    }
    const ancestors = fence.live?.ancestors ?? (await this.store.ancestorsOf(run));
    const won = await this.store.transaction(async (tx) => {
      // The driver's deferred hook events go first, while the run is still active (their writes are fenced).
      if (fence.live) await flushDeferred(this.store.streams, fence.live, tx).catch(() => undefined);
      return writeRunEnding(tx, this.events, run, {
        status,
        result,
        epoch: fence.epoch,
        state: fence.state,
        ancestors,
      });
    });
    if (won) this.bus.emit(RUN_FINISHED, { runId: run.id, orgId: run.orgId, status, surface: run.surface });
    return won;
  }

  /**
   * The driver ends its run (fenced by its epoch); when it wins, the outcome is kept on `live` (no read to report
   * it).
   */
  async finishLive(live: LiveRun, status: FinalRunStatus, result: RunResult, state?: RunState): Promise<boolean> {
    const won = await this.finish(live.run, status, result, { epoch: live.epoch, state, live });
    if (won) live.outcome = { runId: live.run.id, status, answer: result.answer ?? null, error: result.error ?? null };
    return won;
  }
}
