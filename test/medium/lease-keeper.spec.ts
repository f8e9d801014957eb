import { LeaseKeeper } from '@warden/database';
import { mediumDb, type MediumDb } from './medium-db.js';

/** Lease renewal on a real database, without the app: one statement for all runs, and lost leases reported once. */
describe('LeaseKeeper (medium)', () => {
  let db: MediumDb;
  beforeAll(async () => { db = await mediumDb(); });
  afterAll(async () => { await db.close(); });

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
    expect(Object.fromEntries(lost)).toEqual({ [takenOver]: ['taken over by other'], [ended]: ['the run ended completed elsewhere'] });
    const [{ renewed }] = await db.dataSource.query(
      `SELECT count(*)::int AS renewed FROM agent_runs WHERE id = ANY($1) AND lease_until > now() + interval '30 seconds'`, [runs.slice(2)]);
    expect(renewed).toBe(198);
  });
});
