import type pg from 'pg';
import type { HttpFake } from '../fakes/http-fake.js';
import { until } from '../support/eventually.js';
import type { TestApp } from '../support/test-app.js';
import { startOaApp, type OaApp } from './oa-app.js';
import { openChat } from './runtime-helpers.js';

/**
 * A standing grant given while the run's next call is being asked about: the gate looked for a grant before the grant
 * committed, and the grant looked for waiting requests before that call's request committed. Seen in CI as a run that
 * never finished (audit-approval-trail). Each side now looks again after its own write commits, so one of them sees
 * the other. The interleaving is forced with two statements held inside the database (triggers on advisory locks).
 */
describe('standing grant given while the next call is being asked about (PostgreSQL)', () => {
  let app: OaApp;
  let t: TestApp;
  let oa: HttpFake;
  let db: pg.Client;
  let admin: string;

  /** Holds the next INSERT into `table` whose row matches `when`, inside its statement, until `release`. */
  async function holdInsert(table: string, when: string, key: number) {
    await db.query(`SELECT pg_advisory_lock($1)`, [key]);
    await db.query(`CREATE OR REPLACE FUNCTION test_hold_${key}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_advisory_xact_lock(${key}); RETURN NEW; END $$`);
    await db.query(
      `CREATE TRIGGER test_hold_${key} BEFORE INSERT ON ${table} FOR EACH ROW WHEN (${when})
       EXECUTE FUNCTION test_hold_${key}()`,
    );
    const held = async () =>
      (await db.query(`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted`, [key]))
        .rowCount === 1;
    return {
      held,
      // Unlocked first: the held INSERT holds its table, so dropping the trigger waits for it to finish.
      release: async () => {
        await db.query(`SELECT pg_advisory_unlock($1)`, [key]);
        await db.query(`DROP TRIGGER test_hold_${key} ON ${table}`);
      },
    };
  }

  beforeAll(async () => {
    app = await startOaApp(() => ({ paid: true }));
    ({ t, oa, db, admin } = app);
  });
  afterAll(async () => app?.close());

  it('the call asked about while the grant was given is covered by it: the run goes on, both calls paid', async () => {
    const pay = (amount: number) => ({ tool_calls: [{ name: 'oa__purchase_pay', args: { id: 'PO-R1', amount } }] });
    const agent = await t.request('POST', '/api/agents', {
      token: admin,
      body: {
        name: 'grant-race',
        model_config_json: {
          tools: ['oa__*'],
          model: { provider: 'scripted', script: [pay(60_000), pay(65_000), { content: 'done' }] },
          confirmation: { approvers: ['org_admins'], timeout_s: 120 },
        },
      },
    });
    expect(agent.status).toBe(201);
    const run = openChat(t, admin, { agent_id: agent.body.id, message: 'pay PO-R1 twice' });
    const first = (await run.next('confirmation_pending')).data;

    // The grant waits inside its INSERT; the second call's request waits inside its own.
    const grant = await holdInsert('standing_approvals', 'true', 7101);
    const second = await holdInsert('confirmation_requests', `NEW.args ->> 'amount' = '65000'`, 7102);
    const decided = t.request('POST', `/api/confirmations/${first.confirmation_id}/decision`, {
      token: admin,
      body: { decision: 'approve', standing: { when: 'args.amount <= 70000', max_calls: 3 } },
    });
    // The run went on (the first call paid) and its gate found no grant: it is recording the second request.
    await until('the grant and the second request both held', async () => (await grant.held()) && second.held());
    expect(oa.requests.filter((r) => r.path === '/purchases/PO-R1/pay')).toHaveLength(1);
    // The grant commits and looks for waiting requests while the second one is not committed yet.
    await grant.release();
    expect((await decided).status).toBe(200);
    await second.release();

    await until('the run finished', () => run.events.some((e) => e.event === 'done'), 15_000).catch(
      async (err: unknown) => {
        const rows = async (sql: string) => JSON.stringify((await db.query(sql)).rows);
        const requests = await rows('SELECT status, args, reason FROM confirmation_requests ORDER BY created_at');
        const grants = await rows('SELECT condition, uses, max_calls FROM standing_approvals');
        throw new Error(`${(err as Error).message}\nrequests ${requests}\ngrants ${grants}`);
      },
    );
    expect(oa.requests.filter((r) => r.path === '/purchases/PO-R1/pay').map((r) => r.body.amount)).toEqual([
      60_000, 65_000,
    ]);
    const { rows } = await db.query(
      `SELECT status, reason FROM confirmation_requests WHERE run_id = $1 ORDER BY created_at`,
      [first.run_id ?? run.events[0].data.run_id],
    );
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatchObject({
      status: 'approved',
      reason: expect.stringContaining('covered by standing approval'),
    });
  });
});
