import pg from 'pg';
import { startFakeFeishu, type FakeFeishu } from '../fakes/fake-feishu.js';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { until } from '../support/eventually.js';
import { mintDevToken } from '@warden/auth';
import { startTestApp, TEST_DEV_SECRET, type TestApp } from '../support/test-app.js';
import { OA_ACTIONS } from './runtime-helpers.js';
import {
  adminLink,
  click,
  decide,
  FEISHU_APP,
  feishuChannel,
  person,
  runGate,
  settings,
  statusOf,
  type Person,
} from './approver-support.js';

/**
 * Issue #14 "today" list, each tried as a member or attacker would: a chat identity claimed without proof, the
 * self-approval rule dodged by unlinking, a channel approver list that did not bind the API, a workflow CONNECTOR
 * node that could not carry an approver policy. (Card truncation and injection: libs/channels/src/shared/card-text.spec.ts.)
 */
describe('who may approve: the breaks of issue #14 (PostgreSQL, fake Feishu)', () => {
  let t: TestApp;
  let feishu: FakeFeishu;
  let oa: HttpFake;
  let carol: Person; // admin
  let alice: Person; // member, requester
  let bob: Person; // member
  let boss: Person; // member, the channel's approver

  beforeAll(async () => {
    [feishu, oa] = await Promise.all([
      startFakeFeishu(FEISHU_APP),
      startHttpFake((req) => ({ ok: true, path: req.path })),
    ]);
    t = await startTestApp({ AUTH_IDENTITY_CLAIMS: 'feishu=feishu_open_id' });
    carol = await person(t, 'carol', 'acme', ['admin']);
    alice = await person(t, 'alice', 'acme');
    bob = await person(t, 'bob', 'acme');
    boss = await person(t, 'boss', 'acme');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await Promise.all([feishu?.close(), oa?.close()]);
  });

  it("a member cannot claim someone else's chat identity; the boss's click is never recorded as Bob's", async () => {
    const channelId = await feishuChannel(t, carol, feishu);
    const claim = await t.request('PUT', '/api/users/bob/identities', {
      token: bob.token,
      body: { feishu_open_id: 'ou_boss_claimed' },
    });
    expect(claim.status).toBe(403);
    expect(claim.body.message).toMatch(/proof/);
    expect((await t.request('GET', '/api/me', { token: bob.token })).body.identities.feishu_open_id).toBeNull();

    const run = runGate(t, alice, settings(carol, { channelId, approverScope: 'org_members' }));
    const id = await run.id;
    const answer = await click(t, channelId, id, 'ou_boss_claimed');
    expect(answer).toMatchObject({ ok: false, message: expect.stringMatching(/not linked to a Warden user/) });
    expect((await statusOf(t, alice, id)).status).toBe('pending');
    expect((await decide(t, carol, id, 'reject')).status).toBe(200);
  });

  it('forbid_self_approval cannot be dodged by unlinking: the requester is refused linked, unlinked and relinked', async () => {
    const channelId = await feishuChannel(t, carol, feishu, {
      approver_open_ids: ['ou_bob_req', 'ou_bob_new', 'ou_boss'],
    });
    await adminLink(t, carol, 'bob', 'ou_bob_req');
    const run = runGate(t, bob, settings(carol, { channelId, approverScope: 'org_members', forbidSelfApproval: true }));
    const id = await run.id;
    expect(await click(t, channelId, id, 'ou_bob_req')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/self-approval is forbidden/),
    });
    // Bob unlinks himself (allowed, audited) and clicks again from the same, now unlinked, allow-listed account.
    const unlink = await t.request('PUT', '/api/users/bob/identities', {
      token: bob.token,
      body: { feishu_open_id: null },
    });
    expect(unlink.status).toBe(200);
    expect((await click(t, channelId, id, 'ou_bob_req')).ok).toBe(false);
    // Relinked (by an admin) to another allow-listed account: still Bob, still refused; so is the inbox API.
    await adminLink(t, carol, 'bob', 'ou_bob_new');
    expect(await click(t, channelId, id, 'ou_bob_new')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/self-approval/),
    });
    expect((await decide(t, bob, id)).status).toBe(403);
    expect((await statusOf(t, carol, id)).status).toBe('pending');
    await adminLink(t, carol, 'boss', 'ou_boss');
    expect(await click(t, channelId, id, 'ou_boss')).toMatchObject({ ok: true, message: 'Approved by Boss' });
    expect((await run.result).allow).toBe(true);
    const audit = await t.request('GET', '/api/audit/identities', { token: carol.token });
    expect(audit.body.filter((r: any) => r.sub === 'bob').map((r: any) => [r.action, r.method])).toEqual(
      expect.arrayContaining([
        ['unlink', 'self'],
        ['link', 'admin'],
      ]),
    );
    await adminLink(t, carol, 'bob', null);
    await adminLink(t, carol, 'boss', null);
  });

  it("a channel's approver list binds the inbox API too: the requester cannot approve his own call there", async () => {
    const channelId = await feishuChannel(t, carol, feishu, { approver_open_ids: ['ou_boss2'] });
    await adminLink(t, carol, 'boss', 'ou_boss2');
    const run = runGate(t, alice, settings(carol, { channelId })); // default scope: initiator
    const id = await run.id;
    const own = await decide(t, alice, id);
    expect(own.status).toBe(403);
    expect(own.body.message).toMatch(/channel's approver list/);
    const viaApi = await decide(t, boss, id);
    expect(viaApi.status).toBe(200);
    expect(viaApi.body).toMatchObject({
      status: 'approved',
      responded_by_user_id: boss.userId,
      approvers: ['channel'],
    });
    expect((await run.result).allow).toBe(true);
    await adminLink(t, carol, 'boss', null);
  });

  it('a workflow CONNECTOR (and AGENT) node with approvers ["org_admins"] refuses the member who started the workflow', async () => {
    const connector = await t.request('POST', '/api/connectors', {
      token: carol.token,
      body: { name: 'oa', base_url: oa.url, actions: OA_ACTIONS },
    });
    expect(connector.status).toBe(201);
    const wf = await t.request('POST', '/api/workflows', {
      token: carol.token,
      body: {
        name: 'pay-wf',
        definition: {
          nodes: [
            { id: 'start', type: 'start' },
            {
              id: 'pay',
              type: 'connector',
              tool: 'oa__purchase_pay',
              args: { id: 'PO-9', amount: 90000 },
              confirmation: { approvers: ['org_admins'] },
            },
            { id: 'end', type: 'end' },
          ],
          edges: [
            { from: 'start', to: 'pay' },
            { from: 'pay', to: 'end' },
          ],
        },
      },
    });
    expect(wf.status).toBe(201);
    const started = await t.request('POST', `/api/workflows/${wf.body.id}/runs`, {
      token: alice.token,
      body: { inputs: {} },
    });
    expect(started.status).toBe(202);
    const row = await until('node approval pending', async () => {
      const list = await t.request('GET', '/api/confirmations?status=pending', { token: alice.token });
      return list.body.find(
        (r: any) =>
          r.tool === 'oa__purchase_pay' && r.requested_by === alice.userId && r.approvers?.[0] === 'org_admins',
      );
    });
    const own = await decide(t, alice, row.id);
    expect(own.status).toBe(403);
    expect(own.body.message).toMatch(/organisation admins/);
    expect(oa.requests).toHaveLength(0);
    expect((await decide(t, carol, row.id)).status).toBe(200);
    await until('paid', () => oa.requests.find((r) => r.path === '/purchases/PO-9/pay'));

    // An AGENT node takes the same policy, over the agent's own (here the default: the initiator alone).
    const agent = await t.request('POST', '/api/agents', {
      token: carol.token,
      body: {
        name: 'payer',
        instructions: 'pay',
        model_config_json: {
          model: {
            provider: 'scripted',
            script: [
              { tool_calls: [{ name: 'oa__purchase_pay', args: { id: 'PO-10', amount: 90000 } }] },
              { content: 'paid' },
            ],
          },
          tools: ['oa__*'],
        },
      },
    });
    expect(agent.status).toBe(201);
    const agentWf = await t.request('POST', '/api/workflows', {
      token: carol.token,
      body: {
        name: 'agent-wf',
        definition: {
          nodes: [
            { id: 's', type: 'start' },
            {
              id: 'a',
              type: 'agent',
              agent_id: agent.body.id,
              prompt: 'pay PO-10',
              confirmation: { approvers: ['org_admins'] },
            },
            { id: 'e', type: 'end' },
          ],
          edges: [
            { from: 's', to: 'a' },
            { from: 'a', to: 'e' },
          ],
        },
      },
    });
    expect(agentWf.status).toBe(201);
    expect(
      (await t.request('POST', `/api/workflows/${agentWf.body.id}/runs`, { token: alice.token, body: { inputs: {} } }))
        .status,
    ).toBe(202);
    const agentRow = await until('agent node approval pending', async () => {
      const list = await t.request('GET', '/api/confirmations?status=pending', { token: alice.token });
      return list.body.find((r: any) => r.args?.id === 'PO-10');
    });
    expect(agentRow.approvers).toEqual(['org_admins']);
    expect((await decide(t, alice, agentRow.id)).status).toBe(403);
    expect((await decide(t, carol, agentRow.id)).status).toBe(200);
    await until('agent node paid', () => oa.requests.find((r) => r.path === '/purchases/PO-10/pay'));

    const bad = await t.request('POST', '/api/workflows', {
      token: carol.token,
      body: {
        name: 'nobody',
        definition: {
          nodes: [
            { id: 's', type: 'start' },
            {
              id: 'p',
              type: 'connector',
              tool: 'oa__purchase_pay',
              confirmation: { approvers: ['initiator'], forbid_self_approval: true },
            },
            { id: 'e', type: 'end' },
          ],
          edges: [
            { from: 's', to: 'p' },
            { from: 'p', to: 'e' },
          ],
        },
      },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toMatch(/nobody could approve/);
  });

  it('an identity asserted by the IdP (AUTH_IDENTITY_CLAIMS) is linked on sign-in, audited as sso, and decides as that user', async () => {
    const token = await mintDevToken(TEST_DEV_SECRET, {
      sub: 'gina',
      org: 'acme',
      roles: ['admin'],
      name: 'Gina',
      extra: { feishu_open_id: 'ou_gina_sso' },
    });
    const me = await t.request('GET', '/api/me', { token });
    expect(me.body.identities.feishu_open_id).toBe('ou_gina_sso');
    const channelId = await feishuChannel(t, carol, feishu);
    const run = runGate(t, alice, settings(carol, { channelId, approvers: ['org_admins'] }));
    expect(await click(t, channelId, await run.id, 'ou_gina_sso')).toMatchObject({
      ok: true,
      message: 'Approved by Gina',
    });
    expect((await run.result).allow).toBe(true);
    const audit = await t.request('GET', '/api/audit/identities', { token: carol.token });
    expect(audit.body).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ sub: 'gina', external_id: 'ou_gina_sso', action: 'link', method: 'sso' }),
      ]),
    );
  });

  it('linking with proof: a code goes to that account; a wrong or expired code changes nothing; the right one links (audited)', async () => {
    const channelId = await feishuChannel(t, carol, feishu);
    const start = await t.request('POST', '/api/me/identities/link', {
      token: bob.token,
      body: { platform: 'feishu', external_id: 'ou_bob_proof', channel_id: channelId },
    });
    expect(start.status).toBe(202);
    const dm = await until('code sent', () =>
      feishu.sent.find((m) => m.receiveIdType === 'open_id' && m.chatId === 'ou_bob_proof'),
    );
    const code = /Code: (\d{6})/.exec(dm.content.text)![1];
    const wrong = code === '000000' ? '000001' : '000000';
    const bad = await t.request('POST', '/api/me/identities/verify', {
      token: bob.token,
      body: { link_id: start.body.link_id, code: wrong },
    });
    expect(bad.status).toBe(400);
    expect((await t.request('GET', '/api/me', { token: bob.token })).body.identities.feishu_open_id).toBeNull();
    // Someone else's session cannot use Bob's code.
    expect(
      (
        await t.request('POST', '/api/me/identities/verify', {
          token: alice.token,
          body: { link_id: start.body.link_id, code },
        })
      ).status,
    ).toBe(404);
    const ok = await t.request('POST', '/api/me/identities/verify', {
      token: bob.token,
      body: { link_id: start.body.link_id, code },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.identities.feishu_open_id).toBe('ou_bob_proof');
    expect(
      (
        await t.request('POST', '/api/me/identities/verify', {
          token: bob.token,
          body: { link_id: start.body.link_id, code },
        })
      ).status,
    ).toBe(409);

    // Expiry: the code's deadline passes (moved in the database rather than waited for).
    const again = await t.request('POST', '/api/me/identities/link', {
      token: alice.token,
      body: { platform: 'feishu', external_id: 'ou_alice_late' },
    });
    expect(again.status).toBe(202);
    const late = await until('code sent', () => feishu.sent.find((m) => m.chatId === 'ou_alice_late'));
    const db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    await db.query(`UPDATE identity_link_codes SET expires_at = now() - interval '1 second' WHERE id = $1`, [
      again.body.link_id,
    ]);
    await db.end();
    const expired = await t.request('POST', '/api/me/identities/verify', {
      token: alice.token,
      body: { link_id: again.body.link_id, code: /Code: (\d{6})/.exec(late.content.text)![1] },
    });
    expect(expired.status).toBe(400);
    expect(expired.body.message).toMatch(/expired/);
    expect((await t.request('GET', '/api/me', { token: alice.token })).body.identities.feishu_open_id).toBeNull();

    const audit = await t.request('GET', '/api/audit/identities', { token: carol.token });
    expect(audit.body).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          sub: 'bob',
          platform: 'feishu',
          external_id: 'ou_bob_proof',
          action: 'link',
          method: 'proof',
          by_sub: 'bob',
        }),
      ]),
    );
    expect((await t.request('GET', '/api/audit/identities', { token: bob.token })).status).toBe(403);
    await adminLink(t, carol, 'bob', null);
  });
});
