import type { AppConfig } from '@warden/common';
import type { DatabaseTarget } from '@warden/database';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { HookPoint, type HookContext } from '../../hook.types.js';
import { ConnectorRateLimitHook } from './connector-rate-limit.hook.js';
import { ConnectorRateLimiters } from './connector-rate-limiters.js';

const REDIS_URL = 'redis://127.0.0.1:6379';
const postgresTarget = { url: 'postgres://unused', embedded: false, close: () => Promise.resolve() } as DatabaseTarget;
const limitersFor = (redisUrl: string | undefined, target: DatabaseTarget) =>
  new ConnectorRateLimiters({ redisUrl } as AppConfig, target, {} as DataSource);

const call = (userId: string, connectorId: string): HookContext => ({
  point: HookPoint.PreToolUse,
  toolName: 'oa__purchase_pay',
  toolArgs: {},
  agentId: 'agent',
  userId,
  orgId: 'org',
  runId: 'run',
  surface: 'chat',
  emit: () => Promise.resolve(),
  signal: new AbortController().signal,
  metadata: {
    connector: { id: connectorId, name: 'oa', action: 'purchase_pay', method: 'POST', url: 'http://oa/pay' },
  },
});

describe('connector_rate_limit stores', () => {
  it('uses memory on embedded PGlite (one process, one connection)', async () => {
    const limiters = limitersFor(undefined, { ...postgresTarget, embedded: true });
    expect(limiters.store).toBe('memory');
    const hook = new ConnectorRateLimitHook(limiters);
    const connector = randomUUID();
    expect((await hook.execute(call('u1', connector), { points: 1, duration_s: 30 })).allow).not.toBe(false);
    expect((await hook.execute(call('u1', connector), { points: 1, duration_s: 30 })).error).toMatch(
      /^rate limit 1 per 30 s for oa reached; retry in (29|30) s$/,
    );
  });

  describe('Redis (REDIS_URL set)', () => {
    const opened: ConnectorRateLimiters[] = [];
    afterAll(async () => {
      await Promise.all(opened.map((l) => l.onApplicationShutdown()));
    });
    const open = async (url: string) => {
      const limiters = limitersFor(url, postgresTarget);
      opened.push(limiters);
      await limiters.onModuleInit();
      return limiters;
    };

    it('is chosen over PostgreSQL, and two instances share the count', async () => {
      const a = await open(REDIS_URL);
      const b = await open(REDIS_URL);
      expect(a.store).toBe('redis');
      const connector = randomUUID();
      const limit = { points: 2, duration_s: 60 };
      const [first, second] = [new ConnectorRateLimitHook(a), new ConnectorRateLimitHook(b)];
      expect((await first.execute(call('u1', connector), limit)).allow).not.toBe(false);
      expect((await second.execute(call('u1', connector), limit)).allow).not.toBe(false);
      expect((await first.execute(call('u1', connector), limit)).error).toMatch(
        /^rate limit 2 per 60 s for oa reached; retry in \d+ s$/,
      );
      expect((await second.execute(call('u2', connector), limit)).allow).not.toBe(false);
    });

    it('fails closed when Redis is unreachable: execute throws (the registry then blocks the call)', async () => {
      const limiters = limitersFor('redis://127.0.0.1:1', postgresTarget);
      opened.push(limiters);
      // Boot does not wait forever for Redis; the connection never comes up here.
      void limiters.onModuleInit();
      await new Promise((r) => setTimeout(r, 50));
      const hook = new ConnectorRateLimitHook(limiters);
      await expect(hook.execute(call('u1', randomUUID()), { points: 5, duration_s: 60 })).rejects.toThrow();
    });
  });
});
