import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { RunEventsService } from '@warden/agents';
import { AppConfig, DueSweeps } from '@warden/common';
import { claimExpiredLeases, nextClaimDueInMs } from '@warden/database';
import { DataSource } from 'typeorm';
import { EvalDriver } from './eval-driver.js';

const CLAIM_BATCH = 20;

/**
 * Continues evals nobody drives any more (their instance restarted or died): claims those whose lease lapsed, taking
 * the lease in the same statement (`FOR UPDATE SKIP LOCKED`), and hands them to EvalDriver. Like run recovery it
 * sweeps only when something may be due (DueSweeps, at most once per RUN_RECOVERY_MS): at startup, at the earliest
 * lease expiry the last sweep found, one lease period after another instance's run event (an eval's cases are runs),
 * and one lease period after a drive here left its eval running.
 */
@Injectable()
export class EvalRecovery implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(EvalRecovery.name);
  private readonly sweeps: DueSweeps;

  constructor(
    private readonly dataSource: DataSource,
    private readonly driver: EvalDriver,
    private readonly config: AppConfig,
    events: RunEventsService,
  ) {
    this.sweeps = new DueSweeps({
      sweep: () => this.sweep(),
      minGapMs: config.runRecoveryMs,
      onError: (err) => this.logger.warn(`eval recovery failed (retried shortly): ${err.message}`),
    });
    // Another instance's run event (an eval's cases are runs): should its holder die, it is due once its lease expires.
    // This process's own runs need no sweep while it lives, only an eval whose drive here stopped without ending it.
    events.onActivity((_, own) => {
      if (!own) this.sweeps.dueIn(config.runLeaseMs);
    });
    driver.onLeftForRecovery(() => this.sweeps.dueIn(config.runLeaseMs));
  }

  onApplicationBootstrap(): void {
    this.sweeps.dueIn(0);
  }

  onModuleDestroy(): void {
    this.sweeps.stop();
  }

  private async sweep(): Promise<number | null> {
    if (this.driver.isStopping) return null;
    const claimed = await claimExpiredLeases(this.dataSource, {
      table: 'evals',
      instanceId: this.config.instanceId,
      leaseMs: this.config.runLeaseMs,
      exclude: this.driver.drivingIds(),
      limit: CLAIM_BATCH,
    });
    for (const id of claimed) {
      this.logger.log({ evalId: id }, 'continuing an eval whose lease expired');
      this.driver.continueClaimed(id);
    }
    if (claimed.length >= CLAIM_BATCH) return 0;
    return nextClaimDueInMs(this.dataSource, { table: 'evals' });
  }
}
