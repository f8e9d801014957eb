import { jest } from '@jest/globals';
import type { AppConfig } from '@warden/common';
import type { DataSource } from 'typeorm';
import type { RunEventsService } from '../runs/run-events.service.js';
import type { RunExecutor } from './run-executor.js';
import { RunRecovery } from './run-recovery.js';

const LEASE_MS = 15_000;
const GAP_MS = 5_000;

function recovery() {
  const query = jest.fn(() => Promise.resolve([]));
  const config = { runLeaseMs: LEASE_MS, runRecoveryMs: GAP_MS, instanceId: 'a' } as unknown as AppConfig;
  const events = { onActivity: () => undefined } as unknown as RunEventsService;
  const executor = { isStopping: false, drivingIds: () => [] } as unknown as RunExecutor;
  return { r: new RunRecovery({ query } as unknown as DataSource, executor, config, events), query };
}

describe('RunRecovery: when a decision arms a sweep', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  it("another instance's decision: one sweep once the lease its claim took could have expired", () => {
    const { r, query } = recovery();
    expect(r.nextSweepAt).toBe(Infinity);
    r.onOtherDecision();
    expect(r.nextSweepAt).toBe(Date.now() + LEASE_MS);
    expect(query).not.toHaveBeenCalled();
    r.onModuleDestroy();
  });

  it('a failed claim here: one sweep a gap later; nothing else arms one', () => {
    const { r } = recovery();
    r.afterFailedClaim();
    expect(r.nextSweepAt).toBe(Date.now() + GAP_MS);
    r.onModuleDestroy();
  });
});
