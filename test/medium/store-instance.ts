import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import { Test, type TestingModule } from '@nestjs/testing';
import { AppConfigModule } from '@warden/common';
import { DATABASE_TARGET } from '@warden/database';
import { DataSource } from 'typeorm';
// Narrow imports (not the libs' indexes): the store and what it needs, not the whole app.
import { RUN_FINISHED } from '../../libs/agents/src/engine/live-run.js';
import { RunFinisher } from '../../libs/agents/src/engine/run-finisher.js';
import { RunLeases } from '../../libs/agents/src/engine/run-leases.js';
import { RunStore } from '../../libs/agents/src/engine/run-store.js';
import { RunEventsService } from '../../libs/agents/src/runs/run-events.service.js';
import type { RunStatus } from '../../libs/agents/src/runs/run.entity.js';
import { AgentRun } from '../../libs/agents/src/runs/run.entity.js';
import { Org } from '../../libs/auth/src/orgs/org.entity.js';
import { mediumDb, type MediumDb } from './medium-db.js';

/**
 * One instance's RunStore and RunFinisher (and the event log they write through) on the shared medium database;
 * no app.
 */
export interface StoreInstance {
  store: RunStore;
  /** Ends the instance's runs (through `store`). */
  finisher: RunFinisher;
  /** The runs this instance announced as finished (RUN_FINISHED). */
  finished: Array<{ runId: string; status: RunStatus }>;
  module: TestingModule;
}

export async function storeInstance(db: MediumDb, instanceId: string): Promise<StoreInstance> {
  const module = await Test.createTestingModule({
    imports: [
      AppConfigModule.forRoot({
        NODE_ENV: 'test',
        DATABASE_URL: db.url,
        INSTANCE_ID: instanceId,
        RUN_LEASE_MS: '60000',
      }),
      EventEmitterModule.forRoot(),
    ],
    providers: [
      RunStore,
      RunFinisher,
      RunLeases,
      RunEventsService,
      { provide: DataSource, useValue: db.dataSource },
      { provide: DATABASE_TARGET, useValue: { url: db.url, embedded: false, close: () => Promise.resolve() } },
    ],
  }).compile();
  await module.init();
  const finished: StoreInstance['finished'] = [];
  module
    .get(EventEmitter2)
    .on(RUN_FINISHED, (e: { runId: string; status: RunStatus }) => finished.push({ runId: e.runId, status: e.status }));
  return { store: module.get(RunStore), finisher: module.get(RunFinisher), finished, module };
}

/**
 * Two instances ('a', 'b') of RunStore on one fresh medium database, made before the suite's tests (handed to `use`)
 * and closed after them.
 */
export function twoStoreInstances(use: (made: { db: MediumDb; a: StoreInstance; b: StoreInstance }) => void): void {
  let made: { db: MediumDb; a: StoreInstance; b: StoreInstance } | undefined;
  beforeAll(async () => {
    const db = await mediumDb({ entities: [AgentRun, Org] });
    const [a, b] = await Promise.all([storeInstance(db, 'a'), storeInstance(db, 'b')]);
    use((made = { db, a, b }));
  });
  afterAll(async () => {
    await Promise.all([made?.a.module.close(), made?.b.module.close()]);
    await made?.db.close();
  });
}
