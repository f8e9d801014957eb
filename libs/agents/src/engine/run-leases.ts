import { decidedAmong, decidedOrOverdueAmong } from '@warden/confirmations/run-port';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '@warden/common';
import { SqlParams } from '@warden/database';
import { DataSource } from 'typeorm';
import type { ToolTurnState } from '../runs/run.entity.js';
import type { RunWrite } from './run-ending.js';
import { parkedClaimSet, type ParkedClaim } from './settle-port.js';

export type { ParkedClaim } from './settle-port.js';

/**
 * Who drives a run: the claims and releases of `agent_runs` leases (the fencing epoch grows with every claim), and
 * the park, where a run waiting for approvals gives its lease up and no process holds it (RunStore.park).
 */
@Injectable()
export class RunLeases {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  /**
   * Claims the run unless another instance holds a live lease, and returns the new fencing epoch (null when another
   * instance drives it). Every claim increments the epoch, so a previous holder's writes fail from now on.
   */
  async acquire(runId: string): Promise<number | null> {
    const [rows]: [Array<{ lease_epoch: number }>, number] = await this.dataSource.query(
      `UPDATE agent_runs SET locked_by = $2, lease_until = now() + make_interval(secs => $3),
              lease_epoch = lease_epoch + 1, parked_on = NULL
       WHERE id = $1 AND status IN ('running', 'waiting')
         AND (locked_by = $2 OR locked_by IS NULL OR lease_until IS NULL OR lease_until < now()) RETURNING lease_epoch`,
      [runId, this.config.instanceId, this.config.runLeaseMs / 1000],
    );
    return rows[0]?.lease_epoch ?? null;
  }

  /**
   * Claims the parked runs waiting for any of these confirmations that is decided (or overdue), in one statement;
   * returns each with its new epoch and the trace it parked in. A run another instance claimed first, or that is not
   * parked, is not returned. Redoable (no own disk flush): a claim lost in a crash leaves a parked run whose approval
   * is decided, which recovery claims; and the resumed call's execution mark flushes it before anything is sent.
   */
  async claimParked(confirmationIds: string[]): Promise<ParkedClaim[]> {
    const [rows]: [Array<{ id: string; lease_epoch: number; trace: Record<string, string> | null }>, number] =
      await this.dataSource.query(
        `UPDATE agent_runs r SET ${parkedClaimSet('$2', '$3')}
         FROM (${decidedOrOverdueAmong('$1::uuid[]')}) c
        WHERE r.id = c.run_id AND r.parked_on && $1::uuid[] AND r.locked_by IS NULL
          AND r.status IN ('running', 'waiting')
       RETURNING r.id, r.lease_epoch, r.state -> 'trace' AS trace, set_config('synchronous_commit', 'off', true)`,
        [confirmationIds, this.config.instanceId, this.config.runLeaseMs / 1000],
      );
    return rows.map((r) => ({ id: r.id, epoch: r.lease_epoch, ...(r.trace ? { trace: r.trace } : {}) }));
  }

  /** Hands the lease back now (another driver may continue at once). */
  async release(runId: string, epoch: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE agent_runs SET lease_until = now()
        WHERE id = $1 AND lease_epoch = $2 AND status IN ('running', 'waiting')`,
      [runId, epoch],
    );
  }

  /** At shutdown: every lease this instance holds ends now. */
  async releaseAll(): Promise<void> {
    await this.dataSource.query(
      `UPDATE agent_runs SET lease_until = now() WHERE locked_by = $1 AND status IN ('running', 'waiting')`,
      [this.config.instanceId],
    );
  }

  /**
   * The park of a run on the approvals of its parked calls, as a write of RunStore.writeRun: the state, `parked_on`,
   * and no holder nor lease — unless one of them is already decided (seen by the same snapshot, counted in
   * `decided`): then the run stays held with a renewed lease. The approvals are read under a share lock, so a
   * decision being written is waited for and seen (`decidedAmong`). Redoable: lost in a crash, the run is driven again.
   */
  parkWrite(p: SqlParams, state: ToolTurnState): RunWrite {
    const ids = p.add((state.parked_calls ?? []).map((c) => c.confirmation_id));
    const decided = decidedAmong(`${ids}::uuid[]`);
    const undecided = `NOT EXISTS (${decided})`;
    const lease = `now() + make_interval(secs => ${p.add(this.config.runLeaseMs / 1000)})`;
    const set = [
      `state = ${p.add(JSON.stringify(state))}`,
      `updated_at = now()`,
      `parked_on = CASE WHEN ${undecided} THEN ${ids}::uuid[] END`,
      `locked_by = CASE WHEN ${undecided} THEN NULL ELSE locked_by END`,
      `lease_until = CASE WHEN ${undecided} THEN NULL ELSE ${lease} END`,
    ];
    // The run row is locked before the approvals are (the fence is read before the assignments): the order a cancel
    // takes them in (the run, then its pending approvals), so a park and a cancel of one run never deadlock.
    const runFirst = `EXISTS (SELECT 1 FROM agent_runs held WHERE held.id = agent_runs.id FOR NO KEY UPDATE)`;
    return { set, where: runFirst, ctes: [['decided', decided]], status: 'waiting', redoable: true };
  }
}
