import { EventBatch, EventLog, type StoredEvent } from '@warden/database';
import pg from 'pg';
import { mediumDb, quietLogger, type MediumDb } from './medium-db.js';

const TABLES = { events: 'run_events', owners: 'agent_runs', channel: 'run_events' } as const;

/** Collects a follower's events; `next(n)` settles once n events arrived (a counter, not a sleep). */
function collector() {
  const got: StoredEvent[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  return {
    got,
    deliver: (e: StoredEvent) => {
      got.push(e);
      for (const w of waiters.filter((x) => got.length >= x.n)) w.resolve();
    },
    next: (n: number) => new Promise<void>((resolve) => (got.length >= n ? resolve() : waiters.push({ n, resolve }))),
  };
}

/** The event log on a real database, without the app: what following costs, and that no event is lost. */
describe('EventLog (medium)', () => {
  let db: MediumDb;
  let log: EventLog;
  const stop = new AbortController();

  beforeAll(async () => {
    db = await mediumDb();
    log = new EventLog(db.dataSource, { embedded: false, url: db.url } as never, TABLES, quietLogger, 60_000);
    await log.start();
  });
  afterAll(async () => {
    stop.abort();
    await log.stop();
    await db.close();
  });

  it('delivers events appended here from memory: one read when the stream opens, none per event', async () => {
    const run = await db.newRun();
    const c = collector();
    db.resetCount();
    const following = log.follow(run, 0, c.deliver, (e) => e.type === 'done', stop.signal);
    await log.append(run, 'first', {});
    await c.next(1);
    for (let i = 0; i < 20; i++) await log.append(run, 'step', { i });
    await log.append(run, 'done', {});
    expect(await following).toBe(true);
    expect(c.got.map((e) => e.seq)).toEqual(Array.from({ length: 22 }, (_, i) => i + 1));
    const reads = db.statements.filter((s) => s.startsWith('SELECT seq, type, data'));
    expect(reads.length).toBeLessThanOrEqual(2); // the opening read (+1 if the first append raced it)
  });

  it("delivers a transaction's events once it commits, in order with the others", async () => {
    const run = await db.newRun();
    const c = collector();
    const following = log.follow(run, 0, c.deliver, (e) => e.type === 'done', stop.signal);
    await log.append(run, 'before', {});
    await db.dataSource.transaction(async (m) => {
      await log.append(run, 'in-tx-1', {}, { runner: m });
      await log.append(run, 'in-tx-2', {}, { runner: m });
    });
    log.wake(run);
    await log.append(run, 'done', {});
    await following;
    expect(c.got.map((e) => e.type)).toEqual(['before', 'in-tx-1', 'in-tx-2', 'done']);
  });

  it('delivers events written by another instance through its NOTIFY', async () => {
    const run = await db.newRun();
    const other = new EventLog(db.dataSource, { embedded: false, url: db.url } as never, TABLES, quietLogger);
    const c = collector();
    const following = log.follow(run, 0, c.deliver, (e) => e.type === 'done', stop.signal);
    await other.append(run, 'elsewhere', {});
    await other.append(run, 'done', {});
    await following;
    expect(c.got.map((e) => e.type)).toEqual(['elsewhere', 'done']);
  });

  it('the safety net is one query for every followed log, and wakes only the logs that moved', async () => {
    const runs = await Promise.all(Array.from({ length: 50 }, () => db.newRun()));
    const collectors = runs.map(() => collector());
    const follows = runs.map((r, i) => log.follow(r, 0, collectors[i].deliver, (e) => e.type === 'done', stop.signal));
    await log.append(runs[0], 'opened', {});
    await collectors[0].next(1);
    // An event written with no NOTIFY at all (as if the notification was lost).
    const sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    await sql.query(
      `WITH n AS (UPDATE agent_runs SET event_seq = event_seq + 1 WHERE id = $1 RETURNING event_seq)
                     INSERT INTO run_events (run_id, seq, type, data) SELECT $1, event_seq, 'silent', '{}' FROM n`,
      [runs[7]],
    );
    await sql.end();
    db.resetCount();
    await log.sweep();
    await collectors[7].next(1);
    expect(collectors[7].got.map((e) => e.type)).toEqual(['silent']);
    expect(db.statements.filter((s) => s.startsWith('SELECT id, event_seq'))).toHaveLength(1);
    // Only the moved log read its events; the 48 quiet followers read nothing.
    expect(db.statements.filter((s) => s.startsWith('SELECT seq, type, data'))).toHaveLength(1);
    for (const r of runs) await log.append(r, 'done', {});
    await Promise.all(follows);
  });

  it('a stream of a run created here reads nothing at all; one that another instance wrote to reads once', async () => {
    const born = async () => {
      const run = await db.newRun();
      const batch = new EventBatch();
      batch.born.add(run);
      await db.dataSource.transaction((m) => log.append(run, 'run', {}, { runner: m, batch }));
      log.publish(batch);
      return run;
    };
    const quiet = await born();
    db.resetCount();
    const c = collector();
    const following = log.follow(quiet, 0, c.deliver, (e) => e.type === 'done', stop.signal);
    await log.append(quiet, 'done', {});
    expect(await following).toBe(true);
    expect(c.got.map((e) => e.type)).toEqual(['run', 'done']);
    expect(db.statements.filter((s) => s.startsWith('SELECT seq, type, data'))).toHaveLength(0);

    // Another instance appended before anyone followed: its NOTIFY makes the log incomplete here, so the stream reads.
    const touched = await born();
    const other = new pg.Client({ connectionString: db.url });
    await other.connect();
    const [row] = (
      await other.query(
        `WITH next AS (UPDATE agent_runs SET event_seq = event_seq + 1 WHERE id = $1 RETURNING event_seq)
       INSERT INTO run_events (run_id, seq, type, data) SELECT $1, event_seq, 'remote', '{}' FROM next RETURNING seq`,
        [touched],
      )
    ).rows;
    await other.query(`SELECT pg_notify('run_events', $1)`, [`${touched}:${row.seq}`]);
    await other.end();
    const seen = collector();
    const probe = new AbortController();
    const watching = log.follow(touched, 0, seen.deliver, () => false, probe.signal);
    await seen.next(2);
    probe.abort();
    await watching;
    expect(seen.got.map((e) => e.type)).toEqual(['run', 'remote']);
  });
});
