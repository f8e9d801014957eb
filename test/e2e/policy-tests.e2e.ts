import type pg from 'pg';
import type { TestApp } from '../support/test-app.js';
import { startOaApp, type OaApp } from './oa-app.js';
import { RuntimeTestHooksModule } from './runtime-helpers.js';

/** #34 (policy tests): a policy carries test cases; they run on demand with the dry-run engine and guard every save. */
describe('policy tests', () => {
  let app: OaApp;
  let t: TestApp;
  let db: pg.Client;
  let admin: string;
  let member: string;
  const model = { provider: 'scripted', script: [{ content: 'ok' }] };
  const LIVE = { confirmation: { approvers: ['org_admins'] } };
  // Payments above 80 000 need two approvals.
  const TIERED = {
    confirmation: { approvers: ['org_admins'], tiers: [{ when: 'args.amount > 80000', approvals: 2 }] },
  };
  const BLOCK_PAY = { class_hooks: [{ name: 'test_block_tool', config: { tool: 'oa__purchase_pay' } }] };
  const TAG_PAY = {
    class_hooks: [{ name: 'test_rewrite_args', config: { tool: 'oa__purchase_pay', set: { memo: 'checked' } } }],
  };
  const CASES = [
    {
      name: 'small payment runs',
      tool: 'oa__purchase_pay',
      args: { id: 'PO-1', amount: 10 },
      expect: { decision: 'allow', rewrite: null },
    },
    {
      name: 'big payment asks once',
      tool: 'oa__purchase_pay',
      args: { id: 'PO-2', amount: 90000 },
      expect: { decision: 'ask', approvals: 1 },
    },
    {
      name: 'reads run',
      tool: 'oa__get_purchase',
      args: { id: 'PO-3' },
      user: 'carol',
      roles: ['buyer'],
      expect: { decision: 'allow' },
    },
  ];
  const req = (method: string, url: string, body?: unknown, token = admin) => t.request(method, url, { token, body });
  const configEvents = async (entityId: string) =>
    (
      await db.query(`SELECT action, payload FROM audit_events WHERE entity_id = $1 AND kind = 'config' ORDER BY seq`, [
        entityId,
      ])
    ).rows as Array<{
      action: string;
      payload: Record<string, unknown>;
    }>;
  const newAgent = async (name: string) => {
    const res = await req('POST', '/api/agents', {
      name,
      instructions: 'x',
      model_config_json: { model, tools: ['oa__*'], ...LIVE },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const agentBody = (policy: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    name: 'tested',
    instructions: 'x',
    model_config_json: { model, tools: ['oa__*'], ...policy },
    ...extra,
  });

  beforeAll(async () => {
    app = await startOaApp(() => ({ ok: true }), { imports: [RuntimeTestHooksModule] });
    ({ t, db, admin } = app);
    member = await t.token('bob', 'acme', []);
  });
  afterAll(async () => {
    await app?.close();
  });

  it("an agent's cases are stored, read back, audited, and run against the live policy, a config and a version", async () => {
    const id = await newAgent('tested');
    expect((await req('GET', `/api/agents/${id}/tests`)).body).toEqual({
      cases: [],
      updated_by: null,
      updated_at: null,
    });
    const put = await req('PUT', `/api/agents/${id}/tests`, { cases: CASES });
    expect(put.status).toBe(200);
    expect(put.body.cases).toEqual(CASES);
    expect((await req('GET', `/api/agents/${id}/tests`)).body.cases).toEqual(CASES);
    expect((await configEvents(id)).map((e) => e.action)).toEqual(['agent.created', 'agent.tests_replaced']);

    const live = await req('POST', `/api/agents/${id}/test`, {});
    expect(live.status).toBe(200);
    expect(live.body).toMatchObject({ candidate: 'live', passed: true, total: 3, failed: 0 });
    expect(live.body.results[1]).toMatchObject({
      name: 'big payment asks once',
      pass: true,
      failures: [],
      actual: { decision: 'ask', approvals: 1, tier: null, rewrite: null },
    });

    // The tier change: the big payment now asks twice, which its case does not expect.
    const tiered = await req('POST', `/api/agents/${id}/test`, { config: TIERED });
    expect(tiered.body).toMatchObject({ candidate: 'config', passed: false, total: 3, failed: 1 });
    expect(tiered.body.results.map((r: { name: string; pass: boolean }) => [r.name, r.pass])).toEqual([
      ['small payment runs', true],
      ['big payment asks once', false],
      ['reads run', true],
    ]);
    expect(tiered.body.results[1]).toMatchObject({
      failures: ['approvals: expected 1, got 2'],
      actual: { decision: 'ask', approvals: 2, tier: 0 },
    });

    // A rewrite and a block: the actual rewrite and the deny are shown.
    const rewritten = await req('POST', `/api/agents/${id}/test`, { config: { ...LIVE, hooks: TAG_PAY } });
    expect(rewritten.body.results[0]).toMatchObject({
      pass: false,
      failures: ['rewrite: expected none, got {"amount":10,"id":"PO-1","memo":"checked"}'],
      actual: { decision: 'allow', rewrite: { id: 'PO-1', amount: 10, memo: 'checked' } },
    });
    const blocked = await req('POST', `/api/agents/${id}/test`, { config: { ...LIVE, hooks: BLOCK_PAY } });
    expect(blocked.body.results[0]).toMatchObject({
      pass: false,
      failures: ['decision: expected allow, got deny'],
      actual: { decision: 'deny', blocked_by: 'test_block_tool', reason: 'oa__purchase_pay is not allowed in tests' },
    });

    // Cases given in the request run instead of the stored ones (and are not stored); version 1 is the live policy.
    const adhoc = [
      {
        name: 'tagged',
        tool: 'oa__purchase_pay',
        args: { id: 'PO-9', amount: 5 },
        expect: { decision: 'allow', rewrite: { id: 'PO-9', amount: 5, memo: 'checked' } },
      },
    ];
    const given = await req('POST', `/api/agents/${id}/test`, { config: { hooks: TAG_PAY }, cases: adhoc });
    expect(given.body).toMatchObject({ passed: true, total: 1, results: [{ name: 'tagged', pass: true }] });
    expect((await req('GET', `/api/agents/${id}/tests`)).body.cases).toEqual(CASES);
    expect((await req('POST', `/api/agents/${id}/test`, { version: 1 })).body).toMatchObject({
      candidate: 'version 1',
      passed: true,
    });
    // Running changes nothing: no event, no confirmation, no call to the connector.
    expect(await configEvents(id)).toHaveLength(2);
    expect(app.oa.requests).toHaveLength(0);
    expect(Number((await db.query(`SELECT count(*) AS n FROM confirmation_requests`)).rows[0].n)).toBe(0);
  });

  it('a save whose tests fail is refused naming the failing cases; forced, it is saved and recorded in the version and the trail', async () => {
    const id = await newAgent('guarded');
    await req('PUT', `/api/agents/${id}/tests`, { cases: CASES });

    const refused = await req('PUT', `/api/agents/${id}`, agentBody(TIERED, { comment: 'tier' }));
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain('"big payment asks once" (approvals: expected 1, got 2)');
    expect(refused.body.message).toContain('force: true');
    expect((await req('GET', `/api/agents/${id}`)).body.model_config_json.confirmation).toEqual(LIVE.confirmation);
    expect((await req('GET', `/api/agents/${id}/versions`)).body).toHaveLength(1);

    // A save that keeps the tests green goes through as usual.
    const green = await req(
      'PUT',
      `/api/agents/${id}`,
      agentBody({ confirmation: { ...LIVE.confirmation, timeout_s: 60 } }),
    );
    expect(green.status).toBe(200);

    const forced = await req(
      'PUT',
      `/api/agents/${id}`,
      agentBody(TIERED, { comment: 'tier, tests to follow', force: true }),
    );
    expect(forced.status).toBe(200);
    const versions = (await req('GET', `/api/agents/${id}/versions`)).body as Array<{
      version: number;
      tests_forced: string[] | null;
    }>;
    expect(versions.map((v) => [v.version, v.tests_forced])).toEqual([
      [1, null],
      [2, null],
      [3, ['big payment asks once']],
    ]);
    const events = await configEvents(id);
    expect(events.at(-1)).toMatchObject({
      action: 'agent.updated',
      payload: {
        policy_version: {
          version: 3,
          created: true,
          comment: 'tier, tests to follow',
          tests_forced: ['big payment asks once'],
        },
      },
    });

    // A rollback is a save too: back to version 1 passes; the shadow's promotion of a failing policy is refused unless forced.
    expect((await req('POST', `/api/agents/${id}/rollback`, { version: 1 })).status).toBe(200);
    expect((await req('POST', `/api/agents/${id}/shadow`, { config: TIERED })).status).toBe(201);
    const promote = await req('POST', `/api/agents/${id}/shadow/promote`, {});
    expect(promote.status).toBe(409);
    expect(promote.body.message).toContain('big payment asks once');
    const promoted = await req('POST', `/api/agents/${id}/shadow/promote`, { force: true });
    expect(promoted.status).toBe(200);
    expect(
      ((await req('GET', `/api/agents/${id}/versions/${promoted.body.version}`)).body as { tests_forced: string[] })
        .tests_forced,
    ).toEqual(['big payment asks once']);
  });

  it('the org hooks carry their own tests: run, refused save, forced save', async () => {
    const id = await newAgent('org-tested');
    const orgCases = [
      {
        name: 'payments go through',
        tool: 'oa__purchase_pay',
        args: { id: 'PO-7', amount: 10 },
        agent: id,
        expect: { decision: 'allow' },
      },
    ];
    const orgId = (await db.query(`SELECT org_id FROM agents WHERE id = $1`, [id])).rows[0].org_id as string;
    expect((await req('PUT', '/api/org/hooks/tests', { cases: orgCases })).status).toBe(200);
    expect((await req('GET', '/api/org/hooks/tests')).body.cases).toEqual(orgCases);
    expect((await req('POST', '/api/org/hooks/test', {})).body).toMatchObject({ candidate: 'live', passed: true });
    const run = await req('POST', '/api/org/hooks/test', { config: BLOCK_PAY });
    expect(run.body).toMatchObject({
      passed: false,
      results: [{ name: 'payments go through', actual: { decision: 'deny', blocked_by: 'test_block_tool' } }],
    });

    const refused = await req('PUT', '/api/org/hooks', BLOCK_PAY);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain(
      'the policy tests of the org hooks fail on this change: "payments go through" (decision: expected allow, got deny)',
    );
    expect((await req('GET', '/api/org/hooks')).body.hooks).toEqual({});
    const forced = await req('PUT', '/api/org/hooks', { ...BLOCK_PAY, force: true, comment: 'freeze payments' });
    expect(forced.status).toBe(200);
    const versions = (await req('GET', '/api/org/hooks/versions')).body as Array<{ tests_forced: string[] | null }>;
    expect(versions.at(-1)?.tests_forced).toEqual(['payments go through']);
    expect((await configEvents(orgId)).at(-1)).toMatchObject({
      action: 'org_hooks.updated',
      payload: { policy_version: { tests_forced: ['payments go through'] } },
    });
    // Put back (forced again is not needed: the tests pass on the empty hooks).
    expect((await req('PUT', '/api/org/hooks', {})).status).toBe(200);
    await req('PUT', '/api/org/hooks/tests', { cases: [] });
  });

  it('bad input: a 4xx naming the problem, and nothing changes', async () => {
    const id = await newAgent('bad-input');
    await req('PUT', `/api/agents/${id}/tests`, { cases: CASES });
    const before = Number((await db.query(`SELECT count(*) AS n FROM audit_events`)).rows[0].n);
    const pay = { tool: 'oa__purchase_pay', args: { id: 'PO-1', amount: 1 } };
    const cases: Array<[string, string, unknown, number, string]> = [
      ['PUT', `/api/agents/${id}/tests`, { cases: 'all of them' }, 400, 'cases must be an array'],
      ['PUT', `/api/agents/${id}/tests`, { cases: [{ name: 'x', ...pay }] }, 400, 'cases[0].expect: required'],
      [
        'PUT',
        `/api/agents/${id}/tests`,
        { cases: [{ name: 'x', ...pay, expect: { decision: 'block' } }] },
        400,
        'cases[0].expect.decision: must be allow, ask or deny, got "block"',
      ],
      [
        'PUT',
        `/api/agents/${id}/tests`,
        { cases: [{ name: 'x', ...pay, expect: { decision: 'allow', approvals: 2 } }] },
        400,
        'cases[0].expect.approvals: only with decision ask',
      ],
      [
        'PUT',
        `/api/agents/${id}/tests`,
        { cases: [{ name: 'x', ...pay, expect: { decision: 'allow' }, when: 'now' }] },
        400,
        'cases[0].when: unknown key',
      ],
      [
        'PUT',
        `/api/agents/${id}/tests`,
        {
          cases: [
            { name: 'x', ...pay, expect: { decision: 'allow' } },
            { name: 'x', ...pay, expect: { decision: 'ask' } },
          ],
        },
        400,
        'cases[1].name: "x" is used by an earlier case',
      ],
      [
        'PUT',
        `/api/agents/${id}/tests`,
        { cases: [{ name: 'x', tool: 'oa__refund', args: {}, expect: { decision: 'allow' } }] },
        400,
        'cases[0].tool: unknown tool "oa__refund" (case "x")',
      ],
      [
        'POST',
        `/api/agents/${id}/test`,
        { version: 7 },
        400,
        `version 7 is not a version of the policy of agent ${id}`,
      ],
      ['POST', `/api/agents/${id}/test`, { version: 1, config: TIERED }, 400, 'give at most one of config or version'],
      ['POST', `/api/agents/${id}/test`, { config: { hooks: { class_hooks: ['no_such_hook'] } } }, 400, 'no_such_hook'],
      [
        'POST',
        `/api/agents/${id}/test`,
        { cases: [{ name: 'x', tool: 'nope', args: {}, expect: { decision: 'allow' } }] },
        400,
        'unknown tool "nope"',
      ],
      ['POST', '/api/org/hooks/test', { version: 999 }, 400, 'version 999 is not a version of the org hooks'],
      [
        'GET',
        '/api/agents/00000000-0000-4000-8000-000000000000/tests',
        undefined,
        404,
        'agent 00000000-0000-4000-8000-000000000000 not found',
      ],
      ['PUT', `/api/agents/${id}/tests`, { cases: [] }, 403, ''],
    ];
    for (const [method, url, body, status, message] of cases) {
      const res = await req(method, url, body, status === 403 ? member : admin);
      expect([url, res.status]).toEqual([url, status]);
      if (message) expect(String(res.body.message)).toContain(message);
    }
    expect((await req('GET', `/api/agents/${id}/tests`)).body.cases).toEqual(CASES);
    expect(Number((await db.query(`SELECT count(*) AS n FROM audit_events`)).rows[0].n)).toBe(before);
  });
});
