import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config.js';

/**
 * Every AUDIT_ANCHOR_INTERVAL_S, logs the chain head (seq and hash) of each org whose trail grew since the last anchor.
 * The log lands outside the database (log shipping, a SIEM): a later rewrite of the chain up to an anchored seq cannot
 * reproduce that hash, so `GET /api/audit/verify` plus the anchor proves the trail was not rebuilt.
 */
@Injectable()
export class AuditAnchor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('AuditAnchor');
  private timer: NodeJS.Timeout | null = null;
  private since = new Date(0);

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    const seconds = this.config.auditAnchorIntervalS;
    if (seconds > 0) this.timer = setInterval(() => void this.anchor(), seconds * 1000).unref();
  }

  beforeApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Logs the heads that moved; returns them (tests). */
  async anchor(): Promise<Array<{ org_id: string; seq: string; hash: string }>> {
    const now = new Date();
    try {
      const heads: Array<{ org_id: string; seq: string; hash: string }> = await this.dataSource.query(
        `SELECT org_id::text AS org_id, seq::text AS seq, hash FROM audit_chain_heads
          WHERE updated_at >= $1 AND seq > 0 ORDER BY org_id`,
        [this.since],
      );
      for (const h of heads) this.logger.log(`audit chain anchor: org ${h.org_id} seq ${h.seq} hash ${h.hash}`);
      this.since = now;
      return heads;
    } catch (err) {
      this.logger.error(`audit chain anchor failed: ${(err as Error).message}`);
      return [];
    }
  }
}
