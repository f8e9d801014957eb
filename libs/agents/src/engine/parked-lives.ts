import { Injectable } from '@nestjs/common';
import { BoundedMap } from '@warden/common';
import type { LiveRun } from './live-run.js';
import { LiveRunBuilder } from './live-run-builder.js';

/** How many parked runs a process remembers; the oldest is forgotten first (it is then rebuilt from the database). */
const KEPT = 500;

/**
 * The live runs this process parked, kept in memory only (no lease, no timer, nothing runs for them), so that a
 * decision claimed here resumes its run without reading and rebuilding it. A run claimed after another driver held
 * it is rebuilt (LiveRunBuilder.revive refuses a stale one). Its kept hooks are not reused: a revived run reads its
 * chain again, so that the chain in force decides its resumed call on this instance as on any other.
 */
@Injectable()
export class ParkedLives {
  private readonly lives = new BoundedMap<string, LiveRun>(KEPT);

  constructor(private readonly builder: LiveRunBuilder) {}

  keep(live: LiveRun): void {
    this.lives.set(live.run.id, live);
  }

  /**
   * The kept run, revived for a drive at `epoch` (with its hooks as in force now); undefined when none is kept or it
   * is stale.
   */
  revive(runId: string, epoch: number): Promise<LiveRun | undefined> {
    const parked = this.lives.take(runId);
    return parked ? this.builder.revive(parked, epoch) : Promise.resolve(undefined);
  }
}
