import pg from 'pg';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { until } from '../support/eventually.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { OA_ACTIONS } from './runtime-helpers.js';

/**
 * Evals bypass hooks (no human waits) and are therefore safe by construction: a write is simulated — answered from
 * the case's fixtures, never sent — reads run for real unless the eval says otherwise, every call is audited, and
 * only admins start evals.
 */
describe('evals never send a write (PostgreSQL)', () => {
  let t: TestApp;
  let oa: HttpFake;
  let admin: string;
  let member: string;
  let payer: string;
  let db: pg.Client;

  const scripted = (script: unknown[]) => ({ model: { provider: 'scripted', script } });
  const pays = () => oa.requests.filter((r) => r.path.endsWith('/pay'));
  const reads = () => oa.requests.filter((r) => r.method === 'GET');
  const runEval = async (body: Record<string, unknown>) => {
    const created = await t.request('POST', '/api/evals', { token: admin, body });
    expect(created.status).toBe(202);
    return until('eval finished', async () => {
      const r = await t.request('GET', `/api/evals/${created.body.id}`, { token: admin });
      return r.body.status === 'running' ? undefined : r.body;
    });
  };
  const auditOf = (runId: string, count: number) =>
    until(`${count} audit rows`, async () => {
      const res = await t.request('GET', `/api/audit/connector-calls?run_id=${runId}`, { token: admin });
      return res.body.length >= count ? (res.body as Array<Record<string, any>>) : undefined;
    });

  beforeAll(async () => {
    oa = await startHttpFake((req) =>
      req.method === 'GET' ? { id: 'PO-9', amount: 600_000, status: 'open' } : { paid: true },
    );
    t = await startTestApp();
    admin = await t.token('alice', 'acme', ['admin']);
    member = await t.token('bob', 'acme', []);
    expect(
      (
        await t.request('POST', '/api/connectors', {
          token: admin,
          body: { name: 'oa', base_url: oa.url, actions: OA_ACTIONS },
        })
      ).status,
    ).toBe(201);
    const res = await t.request('POST', '/api/agents', {
      token: admin,
      body: {
        name: 'eval-payer',
        model_config_json: {
          ...scripted([
            { tool_calls: [{ name: 'oa__get_purchase', args: { id: 'PO-9' } }] },
            { tool_calls: [{ name: 'oa__purchase_pay', args: { id: 'PO-9', amount: 600_000 } }] },
            { content: 'paid PO-9' },
          ]),
          tools: ['oa__*'],
        },
      },
    });
    expect(res.status).toBe(201);
    payer = res.body.id;
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await t?.close();
    await oa?.close();
  });
  beforeEach(() => {
    oa.requests.length = 0;
  });

  it('break 1: a member cannot start an eval (403) and nothing runs', async () => {
    const before = (await db.query(`SELECT count(*)::int AS n FROM agent_runs`)).rows[0].n;
    const res = await t.request('POST', '/api/evals', {
      token: member,
      body: { agent_id: payer, cases: [{ input: 'pay PO-9' }] },
    });
    expect(res.status).toBe(403);
    expect((await db.query(`SELECT count(*)::int AS n FROM evals`)).rows[0].n).toBe(0);
    expect((await db.query(`SELECT count(*)::int AS n FROM agent_runs`)).rows[0].n).toBe(before);
    expect(oa.requests).toHaveLength(0);
  });

  it('break 1: as admin, the 600 000 payment is simulated with the fixture, the read is real, both are audited', async () => {
    const result = await runEval({
      agent_id: payer,
      cases: [
        {
          input: 'pay PO-9',
          expect_contains: 'paid',
          expect_tool_calls: [{ tool: 'oa__purchase_pay', args_subset: { amount: 600_000 } }],
          fixtures: { oa__purchase_pay: { paid: true, receipt: 'R-FIXTURE-1' } },
        },
      ],
    });
    expect(pays()).toHaveLength(0);
    expect(reads().map((r) => r.path)).toEqual(['/purchases/PO-9']);
    expect(result).toMatchObject({ status: 'completed', hooks: 'bypassed', reads: 'live', passed: 1, total: 1 });
    const [c] = result.results;
    expect(c.tool_calls).toEqual([
      { tool: 'oa__get_purchase', args: { id: 'PO-9' }, simulated: false, status: 'done' },
      { tool: 'oa__purchase_pay', args: { id: 'PO-9', amount: 600_000 }, simulated: true, status: 'done' },
    ]);
    const { rows } = await db.query(
      `SELECT tool, result FROM tool_calls WHERE run_id = $1 AND tool = 'oa__purchase_pay'`,
      [c.run_id],
    );
    expect(rows[0].result).toBe('{"paid":true,"receipt":"R-FIXTURE-1"}');
    // No approval was asked for, and the audit trail has both calls, flagged.
    expect((await db.query(`SELECT count(*)::int AS n FROM confirmation_requests`)).rows[0].n).toBe(0);
    const audit = await auditOf(c.run_id, 2);
    expect(audit.map((a) => [a.tool, a.surface, a.simulated]).sort()).toEqual([
      ['oa__get_purchase', 'eval', false],
      ['oa__purchase_pay', 'eval', true],
    ]);
  });

  it('without a fixture the observation says the call was simulated; a wrong expected call fails the case and says why', async () => {
    const result = await runEval({
      agent_id: payer,
      cases: [
        { input: 'pay PO-9', expect_tool_calls: [{ tool: 'oa__purchase_pay', args_subset: { amount: 60_000 } }] },
      ],
    });
    expect(pays()).toHaveLength(0);
    const [c] = result.results;
    expect(c.passed).toBe(false);
    expect(c.failures).toEqual([
      expect.stringContaining('no call of oa__purchase_pay with args containing {"amount":60000}'),
    ]);
    const { rows } = await db.query(`SELECT result FROM tool_calls WHERE run_id = $1 AND tool = 'oa__purchase_pay'`, [
      c.run_id,
    ]);
    expect(rows[0].result).toBe('[eval] oa__purchase_pay was simulated, not sent');
  });

  it('reads: "simulated" keeps reads off the connector too; evals still never pay while the org is read-only', async () => {
    expect((await t.request('PUT', '/api/org/read-only', { token: admin, body: { read_only: true } })).status).toBe(
      200,
    );
    try {
      const result = await runEval({
        agent_id: payer,
        reads: 'simulated',
        cases: [{ input: 'pay PO-9', fixtures: { oa__get_purchase: [{ id: 'PO-9', amount: 600_000 }] } }],
      });
      expect(oa.requests).toHaveLength(0);
      expect(result.results[0].tool_calls.map((c: { simulated: boolean }) => c.simulated)).toEqual([true, true]);
    } finally {
      await t.request('PUT', '/api/org/read-only', { token: admin, body: { read_only: false } });
    }
  });

  it('a delegate of an eval run is an eval run too: its payment is simulated', async () => {
    const delegate = await t.request('POST', '/api/agents', {
      token: admin,
      body: {
        name: 'eval-delegate',
        model_config_json: {
          ...scripted([
            { tool_calls: [{ name: 'oa__purchase_pay', args: { id: 'PO-9', amount: 70_000 } }] },
            { content: 'paid' },
          ]),
          tools: ['oa__*'],
        },
      },
    });
    const caller = await t.request('POST', '/api/agents', {
      token: admin,
      body: {
        name: 'eval-caller',
        model_config_json: {
          ...scripted([
            { tool_calls: [{ name: 'call_agent', args: { agent_id: delegate.body.id, task: 'pay PO-9' } }] },
            { content: 'delegated' },
          ]),
          tools: ['call_agent'],
          delegates: [delegate.body.id],
        },
      },
    });
    const result = await runEval({
      agent_id: caller.body.id,
      cases: [{ input: 'pay PO-9', expect_contains: 'delegated' }],
    });
    expect(result.results[0].passed).toBe(true);
    expect(pays()).toHaveLength(0);
    expect((await db.query(`SELECT count(*)::int AS n FROM confirmation_requests`)).rows[0].n).toBe(0);
    const { rows } = await db.query(`SELECT hooks, surface FROM agent_runs WHERE parent_run_id = $1`, [
      result.results[0].run_id,
    ]);
    expect(rows).toEqual([{ hooks: 'bypassed', surface: 'delegate' }]);
  });
});
