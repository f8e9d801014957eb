import { Injectable } from '@nestjs/common';
import {
  annotateSpan,
  AppConfig,
  type RunEventActiveStatus as ActiveRunStatus,
  type RunEventMap,
  type RunEventType,
} from '@warden/common';
import { LlmProviderFactory } from '../llm/llm-provider.factory.js';
import type { AgentRun } from '../runs/run.entity.js';
import type { LiveRun, PreparedRun } from './live-run.js';
import { RunFactory } from './run-factory.js';
import { RunStore } from './run-store.js';

/**
 * Builds what a driver holds in memory for a run it claimed (LiveRun), and the run's `emit`: how the hooks, the gate
 * and the steps tell the run's story.
 */
@Injectable()
export class LiveRunBuilder {
  constructor(
    private readonly llm: LlmProviderFactory,
    private readonly factory: RunFactory,
    private readonly store: RunStore,
    private readonly config: AppConfig,
  ) {}

  async build(run: AgentRun, epoch: number, isStopping: () => boolean, prepared?: PreparedRun): Promise<LiveRun> {
    const base = prepared ?? (await this.factory.prepare(run));
    const ancestors = await this.store.ancestorsOf(run);
    annotateSpan({
      'warden.surface': run.surface,
      'warden.agent_id': run.agentId,
      'warden.org_id': run.orgId,
      'warden.mode': run.mode,
    });
    const live: LiveRun = {
      ...base,
      run,
      epoch,
      ancestors,
      isStopping,
      canPark: this.config.runParkOnApproval && canPark(run),
      abort: new AbortController(),
      deferred: [],
      fresh: new Set(),
      observed: new Map(),
      provider: this.llm.create(base.config.model, run.orgId),
      emit: () => Promise.resolve(),
    };
    live.emit = (type, data, status) => this.emit(live, type, data, status);
    return live;
  }

  /**
   * The live run a drive of this process parked, for the drive that resumes it at `epoch`: only when no other
   * driver held the run in between (the epoch is the next one), so nothing of its state can be stale. Its parked
   * calls are `fresh` (pending, and nobody else can have touched them): their execution mark claims them. Its agent,
   * config and hooks are read again: the chain in force now decides the resumed call, as on any other instance.
   */
  async revive(parked: LiveRun, epoch: number): Promise<LiveRun | undefined> {
    if (epoch !== parked.epoch + 1) return undefined;
    const prepared = await this.factory.prepare(parked.run);
    const { state } = parked.run;
    const fresh = new Set(state.phase === 'tools' ? state.parked_calls?.map((c) => c.call_id) : []);
    const live: LiveRun = {
      ...parked,
      ...prepared,
      provider: this.llm.create(prepared.config.model, parked.run.orgId),
      epoch,
      abort: new AbortController(),
      deferred: [],
      deferredStatus: undefined,
      fresh,
      observed: new Map(),
      outcome: undefined,
    };
    live.emit = (type, data, status) => this.emit(live, type, data, status);
    return live;
  }

  /**
   * The `emit` of a live run: persists the event on the run — only while this driver holds it at its epoch (else the
   * drive stops with LeaseLostError, writing nothing) — and on each ancestor run (so a DAG step's or a delegate's
   * story appears in the caller's stream). A status change comes only from the emitter (`status`: the gate's
   * `waiting` while a call waits for a person, `running` once decided), written through the transition table with
   * the event; an event's type changes no status.
   */
  private async emit<K extends RunEventType>(
    live: LiveRun,
    type: K,
    data: RunEventMap[K],
    status?: ActiveRunStatus,
  ): Promise<void> {
    // A hook's outcome, and a decision on the call (with its status change), are written with the run's next write —
    // the call's execution mark or its blocked outcome: one statement instead of one each.
    if (type === 'hook' || type === 'confirmation_resolved') {
      live.deferred.push({ type, data });
      if (status) live.deferredStatus = status;
      return;
    }
    const written = await this.store.writeRun(live, [{ type, data }], status ? { status } : {});
    if (!written.held) throw this.store.leaseLost(live);
  }
}

/**
 * A run parks on an approval when nobody awaits it in memory: a top-level chat or api run. DAG steps and delegates
 * are awaited by their parent's drive, workflow nodes by the workflow's, evals by the eval; they wait in process.
 */
function canPark(run: AgentRun): boolean {
  return (
    run.parentRunId === null &&
    (run.surface === 'chat' || run.surface === 'api') &&
    run.hooks === 'active' &&
    !run.state.tool_run
  );
}
