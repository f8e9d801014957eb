import pg from 'pg';
import { startFakeFeishu, type FakeFeishu } from '../fakes/fake-feishu.js';
import { until } from '../support/eventually.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import {
  adminLink,
  decide,
  FEISHU_APP,
  feishuChannel,
  person,
  runGate,
  settings,
  type Person,
} from './approver-support.js';

/**
 * Privacy between members of one org, tried with a member's token: another member's approval requests (their args)
 * and workflow runs (inputs, node outputs, events) are "not found" unless the member may decide them or made them.
 */
describe('privacy between members', () => {
  let t: TestApp;
  let feishu: FakeFeishu;
  let carol: Person; // admin
  let alice: Person; // member, the requester
  let bob: Person; // member, role finance
  let dave: Person; // member, nothing to do with alice's requests
  let erin: Person; // member, on the channel's approver list

  beforeAll(async () => {
    feishu = await startFakeFeishu(FEISHU_APP);
    t = await startTestApp();
    carol = await person(t, 'carol', 'acme', ['admin']);
    alice = await person(t, 'alice', 'acme');
    bob = await person(t, 'bob', 'acme', ['finance']);
    dave = await person(t, 'dave', 'acme');
    erin = await person(t, 'erin', 'acme');
    await adminLink(t, carol, 'erin', 'ou_erin');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await feishu?.close();
  });

  describe('confirmations', () => {
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      const listed = await feishuChannel(t, carol, feishu, { approver_open_ids: ['ou_erin'] });
      ids.finance = await runGate(t, alice, settings(carol, { approvers: ['role:finance'] }), {
        id: 'PO-FIN',
        amount: 60001,
      }).id;
      ids.users = await runGate(t, alice, settings(carol, { approvers: ['users:dave'] }), {
        id: 'PO-DAVE',
        amount: 60002,
      }).id;
      ids.channel = await runGate(t, alice, settings(carol, { channelId: listed, approvers: ['channel'] }), {
        id: 'PO-CHAN',
        amount: 60003,
      }).id;
    }, 30_000);

    const listed = async (who: Person) => {
      const res = await t.request('GET', '/api/confirmations', { token: who.token });
      expect(res.status).toBe(200);
      return new Set((res.body as Array<{ id: string }>).map((r) => r.id));
    };

    it('a member sees exactly the requests they may decide or made; the rest are not found, args included', async () => {
      const all = [ids.finance, ids.users, ids.channel];
      const visible: Array<[Person, string[]]> = [
        [alice, all],
        [carol, all],
        [bob, [ids.finance]],
        [dave, [ids.users]],
        [erin, [ids.channel]],
      ];
      for (const [who, expected] of visible) {
        const mine = await listed(who);
        expect(all.filter((id) => mine.has(id)).sort()).toEqual([...expected].sort());
        for (const id of all) {
          const res = await t.request('GET', `/api/confirmations/${id}`, { token: who.token });
          expect(res.status).toBe(expected.includes(id) ? 200 : 404);
          if (!expected.includes(id)) expect(res.text).not.toMatch(/PO-(FIN|DAVE|CHAN)/);
        }
      }
    });

    it('the filter keeps the newest-first order and the limit for a member', async () => {
      for (let i = 0; i < 3; i++)
        await runGate(t, alice, settings(carol, { approvers: ['org_admins'] }), { id: `PO-ADM-${i}`, amount: 1 }).id;
      const res = await t.request('GET', '/api/confirmations?limit=2', { token: bob.token });
      expect(res.body.map((r: { id: string }) => r.id)).toEqual([ids.finance]);
      const two = await t.request('GET', '/api/confirmations?limit=2', { token: alice.token });
      expect(two.body.map((r: { args: { id: string } }) => r.args.id)).toEqual(['PO-ADM-2', 'PO-ADM-1']);
    });

    it('a member still finds their request behind hundreds of newer ones they may not read (the filter pages)', async () => {
      const sql = new pg.Client({ connectionString: t.databaseUrl });
      await sql.connect();
      try {
        // 450 newer requests only "zed" may decide: candidates for the SQL pre-filter, refused by the policy check.
        await sql.query(
          `INSERT INTO confirmation_requests (org_id, agent_id, agent_name, run_id, call_id, tool, args, requested_by, approver_scope,
             agent_owner_id, forbid_self_approval, channel_id, channel_type, expires_at, approvers, tier, approvals_required, decisive_fields, args_digest)
           SELECT org_id, agent_id, agent_name, gen_random_uuid(), call_id || '-' || g, tool, args, requested_by, approver_scope,
             agent_owner_id, forbid_self_approval, channel_id, channel_type, expires_at, '["users:zed"]'::jsonb, tier, approvals_required, decisive_fields, args_digest
             FROM confirmation_requests, generate_series(1, 450) g WHERE id = $1`,
          [ids.users],
        );
      } finally {
        await sql.end();
      }
      const res = await t.request('GET', '/api/confirmations', { token: bob.token });
      expect(res.body.map((r: { id: string }) => r.id)).toEqual([ids.finance]);
      expect((await t.request('GET', '/api/confirmations?limit=500', { token: carol.token })).body).toHaveLength(456);
    });

    it('deciding stays as before: outside the policy is a 403 naming who may decide; inside, the decision counts', async () => {
      const refused = await decide(t, dave, ids.finance);
      expect(refused.status).toBe(403);
      expect(refused.body.message).toMatch(/role "finance"/);
      expect((await decide(t, bob, ids.finance)).status).toBe(200);
    });
  });

  describe('workflow runs', () => {
    it('a member reads and follows only the workflow runs they started; an admin reads all in the org', async () => {
      const agent = await t.request('POST', '/api/agents', {
        token: carol.token,
        body: {
          name: 'wf-agent',
          model_config_json: { model: { provider: 'scripted', script: [{ content: 'the secret node output' }] } },
        },
      });
      expect(agent.status).toBe(201);
      const wf = await t.request('POST', '/api/workflows', {
        token: carol.token,
        body: {
          name: 'private-wf',
          definition: {
            nodes: [
              { id: 'start', type: 'start' },
              { id: 'ask', type: 'agent', agent_id: agent.body.id, prompt: 'About {{inputs.topic}}' },
              { id: 'end', type: 'end' },
            ],
            edges: [
              { from: 'start', to: 'ask' },
              { from: 'ask', to: 'end' },
            ],
          },
        },
      });
      expect(wf.status).toBe(201);
      const started = await t.request('POST', `/api/workflows/${wf.body.id}/runs`, {
        token: alice.token,
        body: { inputs: { topic: 'my salary' } },
      });
      expect(started.status).toBe(202);
      const runId = started.body.run_id as string;
      await until(
        'workflow completed',
        async () =>
          (await t.request('GET', `/api/workflow-runs/${runId}`, { token: alice.token })).body.status === 'completed'
            ? true
            : undefined,
        20_000,
        100,
      );

      for (const path of [`/api/workflow-runs/${runId}`, `/api/workflow-runs/${runId}/events`]) {
        const res = await t.request('GET', path, { token: dave.token });
        expect(res.status).toBe(404);
        expect(res.text).not.toMatch(/my salary|secret node output/);
      }
      const own = await t.request('GET', `/api/workflow-runs/${runId}`, { token: alice.token });
      expect(own.body.inputs).toEqual({ topic: 'my salary' });
      const agentRunId = own.body.nodes.ask.agent_run_id as string;
      expect((await t.request('GET', `/api/runs/${agentRunId}`, { token: dave.token })).status).toBe(404);
      expect((await t.request('GET', `/api/workflow-runs/${runId}`, { token: carol.token })).body.inputs).toEqual({
        topic: 'my salary',
      });
      const events = await t.request('GET', `/api/workflow-runs/${runId}/events`, { token: alice.token });
      expect(events.text).toContain('workflow_started');
    });
  });
});
