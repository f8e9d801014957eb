import type { AgentHookSettings } from '@warden/hooks';
import { startFakeFeishu, type FakeFeishu } from '../fakes/fake-feishu.js';
import { until } from '../support/eventually.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
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
 * `confirmation.approvers` and `confirmation.tiers` (issue #14 acceptance 3 and 4): for each approver kind, one
 * refused and one allowed decision through the inbox API and through a signed Feishu click; the two-person rule.
 */
describe('approver policies and tiers (PostgreSQL, fake Feishu)', () => {
  let t: TestApp;
  let feishu: FakeFeishu;
  let alice: Person; // member, the requester
  let bob: Person; // member, role finance
  let carol: Person; // admin
  let dave: Person; // member, the agent's owner
  let fran: Person; // member, role finance
  let plain: string; // a Feishu channel without its own list
  let listed: string; // a Feishu channel listing only Bob

  const ids: Record<string, string> = {};

  beforeAll(async () => {
    feishu = await startFakeFeishu(FEISHU_APP);
    t = await startTestApp();
    carol = await person(t, 'carol', 'acme', ['admin']);
    alice = await person(t, 'alice', 'acme');
    bob = await person(t, 'bob', 'acme', ['finance']);
    dave = await person(t, 'dave', 'acme');
    fran = await person(t, 'fran', 'acme', ['finance']);
    for (const p of [alice, bob, carol, dave, fran]) {
      ids[p.sub] = `ou_${p.sub}`;
      await adminLink(t, carol, p.sub, ids[p.sub]);
    }
    plain = await feishuChannel(t, carol, feishu);
    listed = await feishuChannel(t, carol, feishu, { approver_open_ids: [ids.bob] });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await feishu?.close();
  });

  const policy = (approvers: string[], extra: Partial<AgentHookSettings['confirmation']> = {}) =>
    settings(dave, {
      channelId: approvers.includes('channel') ? listed : plain,
      approverScope: 'initiator',
      approvers,
      ...extra,
    });

  const kinds: Array<[string, () => { approvers: string[]; allowed: Person; refused: Person; message: RegExp }]> = [
    [
      'initiator',
      () => ({ approvers: ['initiator'], allowed: alice, refused: bob, message: /the user who started the run/ }),
    ],
    ['agent_owner', () => ({ approvers: ['agent_owner'], allowed: dave, refused: alice, message: /agent's owner/ })],
    ['org_admins', () => ({ approvers: ['org_admins'], allowed: carol, refused: bob, message: /organisation admins/ })],
    ['role:finance', () => ({ approvers: ['role:finance'], allowed: bob, refused: dave, message: /role "finance"/ })],
    ['users:dave', () => ({ approvers: ['users:dave'], allowed: dave, refused: carol, message: /the users dave/ })],
    ['channel', () => ({ approvers: ['channel'], allowed: bob, refused: carol, message: /channel's approver list/ })],
  ];

  it.each(kinds)('%s: refused and allowed through the API and through a Feishu click', async (_kind, make) => {
    const k = make();
    const viaApi = runGate(t, alice, policy(k.approvers));
    const apiId = await viaApi.id;
    const refused = await decide(t, k.refused, apiId);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(k.message);
    const allowed = await decide(t, k.allowed, apiId);
    expect(allowed.status).toBe(200);
    expect(allowed.body).toMatchObject({
      status: 'approved',
      responded_by_user_id: k.allowed.userId,
      approvers: k.approvers,
    });
    expect((await viaApi.result).allow).toBe(true);

    const viaChat = runGate(t, alice, policy(k.approvers));
    const chatId = await viaChat.id;
    const channelId = k.approvers.includes('channel') ? listed : plain;
    expect(await click(t, channelId, chatId, ids[k.refused.sub])).toMatchObject({
      ok: false,
      message: expect.stringMatching(k.message),
    });
    expect((await statusOf(t, carol, chatId)).status).toBe('pending');
    expect(await click(t, channelId, chatId, ids[k.allowed.sub])).toMatchObject({ ok: true });
    expect((await viaChat.result).allow).toBe(true);
    const row = await statusOf(t, carol, chatId);
    expect(row.votes).toEqual([
      expect.objectContaining({
        user_id: k.allowed.userId,
        platform: 'feishu',
        external_id: ids[k.allowed.sub],
        approvers: k.approvers,
        decision: 'approve',
      }),
    ]);
  });

  it('agents whose policy nobody could satisfy are refused with a 400 naming the problem', async () => {
    const model = { provider: 'scripted', script: [{ content: 'ok' }] };
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ approvers: [] }, /non-empty list/],
      [{ approvers: ['initiator'], forbid_self_approval: true }, /nobody could approve/],
      [{ approvers: ['wizards'] }, /wizards\\" is not an approver kind/],
      [
        { approvers: ['org_admins'], tiers: [{ when: 'args.amount > 1', approvals: 2, approvers: ['users:dave'] }] },
        /needs 2 distinct approvers/,
      ],
      [{ approvers: ['org_admins'], tiers: [{ when: 'args.amount >', approvals: 2 }] }, /not a valid CEL condition/],
    ];
    for (const [confirmation, message] of cases) {
      const res = await t.request('POST', '/api/agents', {
        token: carol.token,
        body: { name: 'x', instructions: 'x', model_config_json: { model, confirmation } },
      });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toMatch(message);
    }
    const ok = await t.request('POST', '/api/agents', {
      token: carol.token,
      body: {
        name: 'ok',
        instructions: 'x',
        model_config_json: {
          model,
          confirmation: {
            approvers: ['org_admins', { users: ['dave'] }],
            forbid_self_approval: true,
            tiers: [{ when: 'args.amount > 500000', approvals: 2, approvers: ['role:finance'] }],
          },
        },
      },
    });
    expect(ok.status).toBe(201);
  });

  describe('tier args.amount > 500000 needs 2 distinct approvals (role:finance)', () => {
    const tiered = () =>
      policy(['org_admins'], { tiers: [{ when: 'args.amount > 500000', approvals: 2, approvers: ['role:finance'] }] });

    it('first approval -> still pending "1 of 2", same person again -> no change, second person -> approved once', async () => {
      const run = runGate(t, alice, tiered(), { id: 'PO-1', amount: 600000 });
      const id = await run.id;
      expect(await statusOf(t, carol, id)).toMatchObject({
        status: 'pending',
        tier: 0,
        approvals_required: 2,
        approvals_progress: '0 of 2 approvals',
        approvers: ['role:finance'],
      });
      const card = await until('card sent', () => feishu.sent.find((m) => m.uuid === id));
      expect(JSON.stringify(card.content)).toContain('2 distinct approvals needed');
      // An admin is not in this tier's list.
      expect((await decide(t, carol, id)).status).toBe(403);
      const first = await decide(t, bob, id);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ status: 'pending', approvals_progress: '1 of 2 approvals' });
      // The card in the chat is re-rendered with the count, buttons kept.
      const patched = await until('card shows 1 of 2', () =>
        feishu.patches.find(
          (p) => p.messageId === card.messageId && JSON.stringify(p.content).includes('1 of 2 given'),
        ),
      );
      expect(JSON.stringify(patched.content)).toContain('"tag":"button"');
      expect(await click(t, plain, id, ids.bob)).toMatchObject({
        ok: false,
        message: expect.stringMatching(/already approved .*1 of 2 approvals/),
      });
      const again = await decide(t, bob, id);
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ status: 'pending' });
      expect(await statusOf(t, carol, id)).toMatchObject({ status: 'pending', approvals_given: 1 });
      const listed = await t.request('GET', '/api/confirmations?status=pending', { token: alice.token });
      expect(listed.body.find((r: any) => r.id === id)).toMatchObject({ approvals_progress: '1 of 2 approvals' });
      expect(await click(t, plain, id, ids.fran)).toMatchObject({ ok: true, message: 'Approved by Fran' });
      expect((await run.result).allow).toBe(true);
      const row = await statusOf(t, carol, id);
      expect(row).toMatchObject({ status: 'approved', approvals_given: 2, responded_by_user_id: fran.userId });
      expect(row.votes.map((v: any) => [v.name, v.decision, v.tier])).toEqual([
        ['Bob', 'approve', 0],
        ['Fran', 'approve', 0],
      ]);
      expect((await decide(t, bob, id)).status).toBe(409);
    });

    it('an approver who approved and then rejects changes nothing (409): the request stays open for the others', async () => {
      const run = runGate(t, alice, tiered(), { id: 'PO-9', amount: 600000 });
      const id = await run.id;
      expect((await decide(t, bob, id)).status).toBe(200);
      const changed = await decide(t, bob, id, 'reject');
      expect(changed.status).toBe(409);
      expect(changed.body).toMatchObject({
        status: 'pending',
        message: expect.stringMatching(/already approved .*cannot be changed.*1 of 2/),
      });
      expect(await statusOf(t, carol, id)).toMatchObject({ status: 'pending', approvals_given: 1, responded_at: null });
      expect((await decide(t, fran, id)).body).toMatchObject({ status: 'approved' });
      expect((await run.result).allow).toBe(true);
    });

    it('concurrent approvals: the same person twice counts once; two people at once settle it exactly once', async () => {
      const run = runGate(t, alice, tiered(), { id: 'PO-5', amount: 700000 });
      const id = await run.id;
      const [api1, api2, chat] = await Promise.all([
        decide(t, bob, id),
        decide(t, bob, id),
        click(t, plain, id, ids.bob),
      ]);
      // One of the three is counted; the others are told he already approved.
      expect([api1.status === 200, api2.status === 200, chat.ok].filter(Boolean)).toHaveLength(1);
      expect(await statusOf(t, carol, id)).toMatchObject({ status: 'pending', approvals_given: 1 });

      const run2 = runGate(t, alice, tiered(), { id: 'PO-6', amount: 700000 });
      const id2 = await run2.id;
      const both = await Promise.all([decide(t, bob, id2), decide(t, fran, id2)]);
      // Each vote is counted; whichever statement sees the second one settles the request.
      expect(both.map((r) => r.status)).toEqual([200, 200]);
      expect(both.some((r) => r.body.status === 'approved')).toBe(true);
      expect((await run2.result).allow).toBe(true);
      expect(await statusOf(t, carol, id2)).toMatchObject({ status: 'approved', approvals_given: 2 });
      expect((await decide(t, carol, id, 'reject')).status).toBe(403);
      expect((await decide(t, fran, id, 'reject')).body.status).toBe('rejected');
    });

    it('a rejection at any point ends it; below the tier one approval from the base policy is enough', async () => {
      const first = runGate(t, alice, tiered(), { id: 'PO-2', amount: 900000 });
      const id = await first.id;
      expect((await decide(t, fran, id, 'reject')).body).toMatchObject({ status: 'rejected' });
      expect((await first.result).allow).toBe(false);

      const second = runGate(t, alice, tiered(), { id: 'PO-3', amount: 900000 });
      const id2 = await second.id;
      expect(await click(t, plain, id2, ids.bob)).toMatchObject({
        ok: true,
        message: 'Approval recorded: 1 of 2 approvals',
      });
      expect(await click(t, plain, id2, ids.fran, 'reject')).toMatchObject({ ok: true, message: 'Rejected by Fran' });
      expect(await second.result).toMatchObject({ allow: false, error: 'rejected by Fran' });
      expect((await decide(t, fran, id2)).status).toBe(409);

      const small = runGate(t, alice, tiered(), { id: 'PO-4', amount: 60000 });
      const id3 = await small.id;
      expect(await statusOf(t, carol, id3)).toMatchObject({
        tier: null,
        approvals_required: 1,
        approvers: ['org_admins'],
      });
      expect((await decide(t, carol, id3)).body.status).toBe('approved');
      expect((await small.result).allow).toBe(true);
    });
  });
});
