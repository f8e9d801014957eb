import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { sleep } from '../support/eventually.js';
import { payingModel, paymentsByPo, startHarness, until, type Harness } from './process-harness.js';

/**
 * Issue 15 break 5: database connections dropped under a server's feet (a failover, a proxy restart) while runs
 * execute. The process must stay up (no unhandled rejection), and a transient connection error inside a step must
 * leave the run for recovery instead of failing it for good.
 */
describe('database faults (server process, PostgreSQL)', () => {
  let llm: FakeOpenAI;
  let oa: HttpFake;
  let h: Harness | undefined;

  beforeAll(async () => {
    llm = await startFakeOpenAI(payingModel);
    oa = await startHttpFake(async (req) => {
      await sleep(100);
      return { paid: req.path.split('/')[2] };
    });
  });
  afterAll(async () => {
    await h?.close();
    await llm?.close();
    await oa?.close();
  });

  it('break 5: connections killed every 250 ms while 50 runs execute: the process stays up, every run completes, none pays twice', async () => {
    h = await startHarness({ llm, oa, env: { RUN_LEASE_MS: '1500', RUN_RECOVERY_MS: '200' } });
    const a = await h.start();
    const harness = h;
    const pos = Array.from({ length: 50 }, (_, i) => `PO-5${String(i).padStart(2, '0')}`);
    await Promise.all(pos.map((po) => harness.chatUntil(a, `Pay ${po} amount 100`, (e) => e.event === 'run')));
    let kills = 0;
    for (let i = 0; i < 24; i++) {
      const { rows } = await harness.sql.query(`SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`);
      kills += rows[0].n;
      await sleep(250);
    }
    await until('every run ends', async () =>
      (await harness.sql.query(`SELECT count(*)::int AS n FROM agent_runs WHERE status IN ('running', 'waiting')`)).rows[0].n === 0, 60_000)
      .catch(async (err) => {
        const stuck = await harness.sql.query(`SELECT status, locked_by, lease_until, lease_epoch, state->>'phase' AS phase FROM agent_runs WHERE status IN ('running', 'waiting') LIMIT 5`);
        throw new Error(`${(err as Error).message}: ${JSON.stringify(stuck.rows)}\n${a.output().slice(-6000)}`);
      });
    console.log(`database faults: ${kills} connections terminated; ${oa.requests.length} connector calls for ${pos.length} runs`);
    expect(a.child.exitCode).toBeNull();
    // No crash, no unhandled rejection, and no request ended by a dropped connection (an SSE stream waits it out).
    expect(a.output()).not.toMatch(/Unhandled 'error' event|unhandledRejection|Unhandled error/);
    const statuses = (await harness.sql.query(`SELECT status, error FROM agent_runs WHERE status <> 'completed'`)).rows;
    expect(statuses).toEqual([]);
    expect(Math.max(...paymentsByPo(oa).values())).toBe(1);
    expect((await harness.api(a, 'GET', '/api/health')).status).toBe(200);
  }, 120_000);
});
