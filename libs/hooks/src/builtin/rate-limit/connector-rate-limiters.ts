import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { AppConfig } from '@warden/common';
import { DATABASE_TARGET, type DatabaseTarget } from '@warden/database';
import { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { DataSource } from 'typeorm';

export type RateLimitStore = 'postgres' | 'redis' | 'memory';

/** Created by the BuiltinHooks1764460804000 migration in the layout RateLimiterPostgres expects. */
const TABLE = 'connector_rate_limits';
const KEY_PREFIX = 'connector';
const READY_TIMEOUT_MS = 5_000;

/**
 * The rate-limiter-flexible limiters of connector_rate_limit, one per (points, duration) pair, all on one store so
 * that every instance of the server shares the counts: Redis when REDIS_URL is set, otherwise PostgreSQL (the app's
 * own connection pool and the `connector_rate_limits` table), and memory on embedded PGlite, which has a single
 * connection and a single process anyway.
 */
@Injectable()
export class ConnectorRateLimiters implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ConnectorRateLimiters.name);
  readonly store: RateLimitStore;
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  private redis: Redis | null = null;

  constructor(
    private readonly config: AppConfig,
    @Inject(DATABASE_TARGET) target: DatabaseTarget,
    private readonly dataSource: DataSource,
  ) {
    this.store = config.redisUrl ? 'redis' : target.embedded ? 'memory' : 'postgres';
  }

  /**
   * Connects to Redis at boot: without an offline queue a command sent before the connection is ready fails, and
   * the call would be blocked. An unreachable Redis does not stop the boot;
   * connector calls are refused until it is back.
   */
  async onModuleInit(): Promise<void> {
    const url = this.config.redisUrl;
    if (this.store !== 'redis') return;
    // The store is redis only because REDIS_URL is set; without it ioredis would dial localhost instead.
    if (!url) throw new Error('the redis rate-limit store needs REDIS_URL');
    // No offline queue: while Redis is unreachable a call fails at once (and the hook blocks it) instead of hanging
    // until the hook's timeout.
    const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    this.redis = redis;
    redis.on('error', (err: Error) => this.logger.warn(`Redis (rate limits): ${err.message}`));
    const ready = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS).unref();
      redis.once('ready', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    if (!ready)
      this.logger.error(
        `Redis at REDIS_URL not reachable within ${READY_TIMEOUT_MS} ms: ` +
          `connector calls under connector_rate_limit are refused until it is`,
      );
  }

  limiter(points: number, durationS: number): RateLimiterAbstract {
    const id = `${points}/${durationS}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      limiter = this.create(points, durationS);
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  private create(points: number, duration: number): RateLimiterAbstract {
    const common = { points, duration, keyPrefix: KEY_PREFIX };
    switch (this.store) {
      case 'memory':
        return new RateLimiterMemory(common);
      case 'redis':
        if (!this.redis) throw new Error('the Redis rate-limit store is not initialised');
        return new RateLimiterRedis({ ...common, storeClient: this.redis, rejectIfRedisNotReady: true });
      case 'postgres':
        return new RateLimiterPostgres({
          ...common,
          storeClient: this.dataSource,
          storeType: 'typeorm',
          tableName: TABLE,
          tableCreated: true,
        });
    }
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.redis) return;
    this.redis.removeAllListeners('error');
    if (this.redis.status !== 'ready') {
      this.redis.disconnect();
      return;
    }
    await this.redis
      .quit()
      .catch((err: unknown) => this.logger.warn(`closing the Redis connection failed: ${(err as Error).message}`));
  }
}
