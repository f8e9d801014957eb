import { buildDataSourceOptions, claimExpiredLeases, LeaseKeeper } from '@warden/database';
import { DataSource } from 'typeorm';
import { until } from '../support/eventually.js';
import { mediumDb, type MediumDb } from './medium-db.js';

/** Lease renewal on a real database, without the app: one statement for all runs, and lost leases reported once. */
describe('LeaseKeeper (medium)', () => {
  let db: MediumDb;
  beforeAll(async () => {
    db = await mediumDb();
  });
  afterAll(async () => {
    await db.close();
  });

  it('renews 200 leases in one statement and reports each lost lease once, with why', async () => {
    const keeper = new LeaseKeeper(db.dataSource, 'agent_runs', 60_000);
    const runs = await Promise.all(Array.from({ length: 200 }, () => db.newRun({ lockedBy: 'me', epoch: 3 })));
    const lost = new Map<string, string[]>();
    for (const id of runs) keeper.hold(id, 3, (detail) => lost.set(id, [...(lost.get(id) ?? []), detail]));
    const [takenOver, ended] = runs;
    await db.dataSource.query(`UPDATE agent_runs SET lease_epoch = 4, locked_by = 'other' WHERE id = $1`, [takenOver]);
    await db.dataSource.query(`UPDATE agent_runs SET status = 'completed' WHERE id = $1`, [ended]);
    await db.dataSource.query(`UPDATE agent_runs SET lease_until = now() WHERE id = ANY($1)`, [runs.slice(2)]);
    db.resetCount();
    await keeper.tick();
    await keeper.tick();
    keeper.stop();
    expect(db.statements).toHaveLength(2);
    expect(Object.fromEntries(lost)).toEqual({
      [takenOver]: ['taken over by other'],
      [ended]: ['the run ended completed elsewhere'],
    });
    const [{ renewed }] = await db.dataSource.query(
      `SELECT count(*)::int AS renewed FROM agent_runs WHERE id = ANY($1) AND lease_until > now() + interval '30 seconds'`,
      [runs.slice(2)],
    );
    expect(renewed).toBe(198);
  });
});

/** A process paused inside a run's transaction (SIGSTOP, VM freeze) must not keep its runs from being taken over. */
describe('a paused transaction holding a run (medium)', () => {
  let db: MediumDb;
  beforeAll(async () => {
    db = await mediumDb();
  });
  afterAll(async () => {
    await db.close();
  });

  it('the server ends the idle transaction, and another instance claims the run', async () => {
    const paused = new DataSource({
      ...buildDataSourceOptions({ url: db.url, embedded: false, close: () => Promise.resolve() }, 2, 300),
    });
    await paused.initialize();
    const run = await db.newRun({ lockedBy: 'paused', epoch: 1 });
    await db.dataSource.query(`UPDATE agent_runs SET lease_until = now() - interval '1 second' WHERE id = $1`, [run]);
    const q = paused.createQueryRunner();
    await q.startTransaction();
    await q.query(`UPDATE agent_runs SET event_seq = event_seq + 1 WHERE id = $1`, [run]); // the row lock a run's write holds
    // ... and the process stops here. Another instance's recovery skips locked rows until the server ends that session.
    const claimed = await until(
      'the run claimed by another instance',
      async () => {
        const ids = await claimExpiredLeases(db.dataSource, {
          table: 'agent_runs',
          instanceId: 'other',
          leaseMs: 60_000,
          exclude: [],
          limit: 10,
        });
        return ids.includes(run) ? ids : undefined;
      },
      10_000,
      50,
    );
    expect(claimed).toContain(run);
    await q.release().catch(() => undefined);
    await paused.destroy().catch(() => undefined);
  });
});
