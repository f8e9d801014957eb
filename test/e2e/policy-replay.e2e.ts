import { DecisionStore, type RecordedCall } from '@warden/agents';
import { actionDigest } from '@warden/hooks';
import type pg from 'pg';
import type { TestApp } from '../support/test-app.js';
import { startOaApp, type OaApp } from './oa-app.js';
import { RuntimeTestHooksModule } from './runtime-helpers.js';

/** #34 (replay): a candidate policy decides the recorded calls of a window; nothing is executed or changed. */
describe('policy replay', () => {
  let app: OaApp;
  let t: TestApp;
  let db: pg.Client;
  let admin: string;
  let agentId: string;
  let orgId: string;
  const model = { provider: 'scripted', script: [{ content: 'ok' }] };
  const LIVE = { confirmation: { approvers: ['org_admins'] } };
  // The tier change: payments above 80 000 need two approvals.
  const TIERED = {
    confirmation: { approvers: ['org_admins'], tiers: [{ when: 'args.amount > 80000', approvals: 2 }] },
  };
  const FROM = '2026-11-01T00:00:00.000Z';
  const TO = '2026-11-08T00:00:00.000Z';
  const req = (method: string, url: string, body?: unknown) => t.request(method, url, { token: admin, body });

  /** 500 payments as the live policy decided them: amounts 0, 200, … 99 800; above 50 000 the action asks. */
  function recorded(): RecordedCall[] {
    return Array.from({ length: 500 }, (_, i) => {
      const args = { id: `PO-R-${i}`, amount: i * 200 };
      const ask = args.amount > 50000;
      return {
        orgId,
        agentId,
        userId: 'user-r',
        runId: null,
        callId: `call-${i}`,
        tool: 'oa__purchase_pay',
        args,
        createdAt: new Date(Date.parse(FROM) + i * 60_000),
        decision: {
          decision: ask ? 'ask' : 'allow',
          approvals: ask ? 1 : 0,
          tier: null,
          blocked_by: null,
          reason: null,
          args_digest: actionDigest('oa__purchase_pay', args),
          rewritten: false,
        },
      };
    });
  }

  beforeAll(async () => {
    app = await startOaApp(() => ({ ok: true }), { imports: [RuntimeTestHooksModule] });
    ({ t, db, admin } = app);
    const created = await req('POST', '/api/agents', {
      name: 'replayed',
      instructions: 'x',
      model_config_json: { model, tools: ['oa__*'], ...LIVE },
    });
    agentId = created.body.id as string;
    orgId = (await db.query(`SELECT org_id FROM agents WHERE id = $1`, [agentId])).rows[0].org_id as string;
    await t.app.get(DecisionStore, { strict: false }).insert(recorded());
  });
  afterAll(async () => {
    await app?.close();
  });

  it('a tier change over 500 recorded calls returns exactly the calls it changes (acceptance 3)', async () => {
    const same = await req('POST', '/api/policies/replay', { version: 1, agent: agentId, from: FROM, to: TO });
    expect(same.status).toBe(200);
    expect(same.body.summary).toMatchObject({ calls: 500, changed: 0 });

    const res = await req('POST', '/api/policies/replay', { config: TIERED, agent: agentId, from: FROM, to: TO });
    expect(res.status).toBe(200);
    // Amounts above 80 000: i = 401 … 499.
    const expected = Array.from({ length: 99 }, (_, k) => `PO-R-${401 + k}`);
    expect(res.body.changes.map((c: { args: { id: string } }) => c.args.id)).toEqual(expected);
    expect(res.body.changes[0]).toMatchObject({
      call_id: 'call-401',
      old: { decision: 'ask', approvals: 1, tier: null },
      new: { decision: 'ask', approvals: 2, tier: 0 },
      differences: ['approvals_changed'],
    });
    expect(res.body.summary).toMatchObject({
      calls: 500,
      changed: 99,
      more_approvals: 99,
      newly_blocked: 0,
      changed_rewrites: 0,
    });
    expect(res.body.summary.text).toBe(
      'this change would have required 99 more approvals, blocked 0 calls, changed 0 rewrites (99 of 500 calls decided differently)',
    );
    // A window around part of the calls replays only those.
    const part = await req('POST', '/api/policies/replay', {
      config: TIERED,
      agent: agentId,
      from: FROM,
      to: new Date(Date.parse(FROM) + 450 * 60_000).toISOString(),
    });
    expect(part.body.summary).toMatchObject({ calls: 450, changed: 49 });
  });

  it('an org hooks candidate blocks calls (summary counts them); nothing is executed', async () => {
    const block = { class_hooks: [{ name: 'test_block_tool', config: { tool: 'oa__purchase_pay' } }] };
    const res = await req('POST', '/api/policies/replay', { config: block, from: FROM, to: TO });
    expect(res.status).toBe(200);
    expect(res.body.summary).toMatchObject({ calls: 500, changed: 500, newly_blocked: 500, more_approvals: 0 });
    expect(res.body.changes[0].new).toMatchObject({ decision: 'block', blocked_by: 'test_block_tool' });
    expect(app.oa.requests).toHaveLength(0);
    expect(Number((await db.query(`SELECT count(*) AS n FROM confirmation_requests`)).rows[0].n)).toBe(0);
  });

  it('bad input: a 4xx naming the problem, and nothing changes (acceptance 5)', async () => {
    const before = Number((await db.query(`SELECT count(*) AS n FROM audit_events`)).rows[0].n);
    const cases: Array<[unknown, number, string]> = [
      [{ agent: agentId, from: FROM, to: TO }, 400, 'give exactly one of config or version'],
      [
        { config: TIERED, version: 1, agent: agentId, from: FROM, to: TO },
        400,
        'give exactly one of config or version',
      ],
      [
        { version: 9, agent: agentId, from: FROM, to: TO },
        400,
        `version 9 is not a version of the policy of agent ${agentId}`,
      ],
      [{ version: 3, from: FROM, to: TO }, 400, 'version 3 is not a version of the org hooks'],
      [{ config: TIERED, agent: agentId, from: FROM, to: '2027-01-01T00:00:00Z' }, 400, 'window too large: 61 days'],
      [{ config: TIERED, agent: agentId, from: 'yesterday', to: TO }, 400, 'from must be an ISO time'],
      [{ config: TIERED, agent: agentId, from: TO, to: FROM }, 400, 'to must be after from'],
      [
        {
          config: { confirmation: { tiers: [{ when: 'args.amount >', approvals: 2 }] } },
          agent: agentId,
          from: FROM,
          to: TO,
        },
        400,
        'tiers[0].when',
      ],
      [{ config: { nope: true }, agent: agentId, from: FROM, to: TO }, 400, 'policy.nope: unknown key'],
      [{ config: { class_hooks: ['no_such_hook'] }, from: FROM, to: TO }, 400, 'no_such_hook'],
      [{ config: TIERED, agent: 'not-an-agent', from: FROM, to: TO }, 404, 'agent not-an-agent not found'],
      [{ config: TIERED, agent: agentId, from: FROM }, 400, 'to'],
    ];
    for (const [body, status, text] of cases) {
      const res = await req('POST', '/api/policies/replay', body);
      expect({ body, status: res.status }).toEqual({ body, status });
      expect(res.text).toContain(text);
    }
    expect(Number((await db.query(`SELECT count(*) AS n FROM audit_events`)).rows[0].n)).toBe(before);
  });
});
