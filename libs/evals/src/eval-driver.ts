import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { ACTIVE_RUN_STATUSES, RunExecutor, ToolCallRunner, type RunOutcome } from '@warden/agents';
import { AppConfig } from '@warden/common';
import { LeaseKeeper } from '@warden/database';
import { DataSource, Repository } from 'typeorm';
import { unmetExpectations } from './eval-expectations.js';
import { EvalRun, type EvalCase, type EvalCaseResult, type EvalStatus } from './eval.entity.js';

/** This drive no longer holds the eval (its lease was taken over, or the instance is stopping): it writes nothing. */
class EvalLeaseLost extends Error {}

/**
 * Drives evals: an eval is a run of runs, one case after another (so that an eval never floods the model endpoint),
 * under a lease like a run's. Every write is fenced by the lease epoch. Before a case's run is awaited its id is
 * recorded, so whoever continues the eval — this instance restarted, or another one once the lease lapsed
 * (EvalRecovery) — waits for that run (recovered as any run is) instead of starting the case again. A drive stops
 * without writing when its instance stops; an eval continued that cannot go on ends `interrupted`.
 */
@Injectable()
export class EvalDriver implements OnModuleDestroy {
  private readonly logger = new Logger(EvalDriver.name);
  private readonly keeper: LeaseKeeper;
  private readonly leftListeners: Array<() => void> = [];
  private readonly drives = new Map<string, AbortController>();
  private stopping = false;

  constructor(
    @InjectRepository(EvalRun) private readonly evals: Repository<EvalRun>,
    private readonly executor: RunExecutor,
    private readonly toolCalls: ToolCallRunner,
    private readonly config: AppConfig,
    dataSource: DataSource,
  ) {
    this.keeper = new LeaseKeeper(dataSource, 'evals', config.runLeaseMs, (err) =>
      this.logger.warn(`eval lease renewal failed (retried): ${err.message}`),
    );
  }

  /** Takes the lease of a new eval and drives it, detached from the caller. */
  async start(id: string): Promise<void> {
    const [rows]: [Array<{ lease_epoch: number }>, number] = await this.evals.query(
      `UPDATE evals SET locked_by = $2, lease_until = now() + make_interval(secs => $3), lease_epoch = lease_epoch + 1
        WHERE id = $1 AND status = 'running' AND (lease_until IS NULL OR lease_until < now()) RETURNING lease_epoch`,
      [id, this.config.instanceId, this.config.runLeaseMs / 1000],
    );
    if (rows.length > 0) this.detach(id, rows[0].lease_epoch, false);
  }

  /** Continues an eval EvalRecovery claimed for this instance (at the epoch the claim raised it to). */
  continueClaimed(id: string): void {
    this.detach(id, null, true);
  }

  /** Ids of the evals this process drives (recovery never claims those). */
  drivingIds(): string[] {
    return [...this.drives.keys()];
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  /** Stops every drive without a write and hands the leases back, so the evals continue after the restart. */
  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    this.keeper.stop();
    for (const abort of this.drives.values()) abort.abort(new EvalLeaseLost('the server is stopping'));
    await this.evals
      .query(`UPDATE evals SET lease_until = now() WHERE locked_by = $1 AND status = 'running'`, [
        this.config.instanceId,
      ])
      .catch(() => undefined);
  }

  /** Calls `listener` when a drive here stops and leaves its eval running (recovery continues it). */
  onLeftForRecovery(listener: () => void): void {
    this.leftListeners.push(listener);
  }

  /** `epoch` null: the claim's, read with the row. */
  private detach(id: string, epoch: number | null, continued: boolean): void {
    const abort = new AbortController();
    this.drives.set(id, abort);
    void this.drive(id, epoch, continued, abort)
      .catch((err: unknown) => {
        this.logger.error({ err, evalId: id }, 'eval drive failed');
        return false;
      })
      .then((ended) => {
        if (!ended && !this.stopping) for (const listener of this.leftListeners) listener();
      })
      .finally(() => {
        this.drives.delete(id);
        this.keeper.release(id);
      });
  }

  /** True when the eval got its final status here; false when it is left running (for another drive). */
  private async drive(id: string, held: number | null, continued: boolean, abort: AbortController): Promise<boolean> {
    const row = await this.evals.findOneByOrFail({ id });
    // Claimed again elsewhere since: that driver goes on.
    if (held === null && row.lockedBy !== this.config.instanceId) return false;
    const epoch = held ?? row.leaseEpoch;
    const signal = abort.signal;
    this.keeper.hold(id, epoch, (detail) => abort.abort(new EvalLeaseLost(detail)));
    const results = [...row.results];
    try {
      for (let i = results.length; i < row.cases.length; i++) {
        const caseRunId = i === row.results.length ? row.caseRunId : null;
        const result = await this.runCase(row, row.cases[i], caseRunId, epoch, signal);
        if (!result) return false; // the case's run goes on without this drive: whoever continues the eval waits for it
        results.push(result);
        await this.record(id, epoch, { status: 'running', results, caseRunId: null });
      }
      await this.record(id, epoch, { status: 'completed', results, caseRunId: null });
      return true;
    } catch (err) {
      if (err instanceof EvalLeaseLost || signal.aborted) return false;
      const status: EvalStatus = continued ? 'interrupted' : 'failed';
      return this.record(id, epoch, { status, results, caseRunId: null, error: (err as Error).message }).then(
        () => true,
        (e: unknown) => {
          if (!(e instanceof EvalLeaseLost)) throw e;
          return false;
        },
      );
    }
  }

  /** Runs one case (or waits for its run, already started); null when the run did not end while this drive held it. */
  private async runCase(
    row: EvalRun,
    c: EvalCase,
    caseRunId: string | null,
    epoch: number,
    signal: AbortSignal,
  ): Promise<EvalCaseResult | null> {
    let outcome: RunOutcome;
    let runId = caseRunId;
    if (runId) outcome = await this.executor.waitForRun(runId, signal);
    else {
      if (this.stopping || signal.aborted) return null;
      const started = await this.executor.start({
        orgId: row.orgId,
        userId: row.userId,
        agentId: row.agentId,
        message: c.input,
        surface: 'eval',
        eval: { reads: row.reads, ...(c.fixtures ? { fixtures: c.fixtures } : {}) },
      });
      runId = started.runId;
      await this.record(row.id, epoch, { caseRunId: runId });
      outcome = await started.completion;
    }
    if (ACTIVE_RUN_STATUSES.includes(outcome.status) || signal.aborted) return null;
    const toolCalls = (await this.toolCalls.listForRun(runId)).map((t) => ({
      tool: t.tool,
      args: t.args,
      simulated: t.simulated,
      status: t.status,
    }));
    const failures = unmetExpectations(c, outcome, toolCalls);
    return {
      input: c.input,
      output: outcome.answer,
      passed: failures.length === 0,
      ...(failures.length ? { failures } : {}),
      tool_calls: toolCalls,
      run_id: runId,
      ...(outcome.error ? { error: outcome.error } : {}),
    };
  }

  /** Writes while this drive holds the eval at `epoch`; throws EvalLeaseLost otherwise (nothing written). */
  private async record(
    id: string,
    epoch: number,
    change: { status?: EvalStatus; results?: EvalCaseResult[]; caseRunId: string | null; error?: string },
  ): Promise<void> {
    const ended = change.status !== undefined && change.status !== 'running';
    const [, updated] = await this.evals.query<[unknown, number]>(
      `UPDATE evals SET status = COALESCE($3, status), results = COALESCE($4::jsonb, results), case_run_id = $5,
         error = $6, updated_at = now()${ended ? ', locked_by = NULL, lease_until = NULL' : ''}
        WHERE id = $1 AND lease_epoch = $2 AND status = 'running'`,
      [
        id,
        epoch,
        change.status ?? null,
        change.results ? JSON.stringify(change.results) : null,
        change.caseRunId,
        change.error ?? null,
      ],
    );
    if (updated === 0) throw new EvalLeaseLost(`eval ${id} is no longer held at epoch ${epoch}`);
  }
}
