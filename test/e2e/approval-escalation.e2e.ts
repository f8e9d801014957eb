import { startFakeFeishu, type FakeFeishu } from '../fakes/fake-feishu.js';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { until } from '../support/eventually.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { adminLink, click, FEISHU_APP, feishuChannel, person, statusOf, type Person } from './approver-support.js';
import { OA_ACTIONS, openChat } from './runtime-helpers.js';

/**
 * Reminders, escalation, reassignment (issue #20, acceptance 3): remind after 1 s, escalate after 2 s (test settings)
 * -> the fake Feishu receives the reminder in the request's chat and the escalation card in the finance chat; a click
 * from the escalation group runs the call. Every step is a history row of the request.
 */
describe('approval reminders, escalation and reassignment (Feishu fake, PostgreSQL)', () => {
  let t: TestApp;
  let oa: HttpFake;
  let feishu: FakeFeishu;
  let ella: Person; // admin, starts the runs
  let fran: Person; // finance, not an admin
  let gus: Person; // plain member
  let approvalsChannel: string;
  let financeChannel: string;

  const createAgent = async (po: string, confirmation: Record<string, unknown>) => {
    const res = await t.request('POST', '/api/agents', {
      token: ella.token,
      body: {
        name: `esc-${Math.random()}`,
        model_config_json: {
          tools: ['oa__*'],
          model: {
            provider: 'scripted',
            script: [
              { tool_calls: [{ name: 'oa__purchase_pay', args: { id: po, amount: 68_000 } }] },
              { content: 'done' },
            ],
          },
          confirmation: { channel_id: approvalsChannel, approvers: ['org_admins'], timeout_s: 60, ...confirmation },
        },
      },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const paysOf = (po: string) => oa.requests.filter((r) => r.path === `/purchases/${po}/pay`);
  const sentTo = (chat: string, text: string) =>
    feishu.sent.filter((m) => m.chatId === chat && JSON.stringify(m.content).includes(text));

  beforeAll(async () => {
    oa = await startHttpFake(() => ({ paid: true }));
    feishu = await startFakeFeishu(FEISHU_APP);
    t = await startTestApp();
    ella = await person(t, 'ella', 'acme-esc', ['admin']);
    fran = await person(t, 'fran', 'acme-esc', ['finance']);
    gus = await person(t, 'gus', 'acme-esc');
    expect(
      (
        await t.request('POST', '/api/connectors', {
          token: ella.token,
          body: { name: 'oa', base_url: oa.url, actions: OA_ACTIONS },
        })
      ).status,
    ).toBe(201);
    approvalsChannel = await feishuChannel(t, ella, feishu, { chat_id: 'oc_approvals' });
    financeChannel = await feishuChannel(t, ella, feishu, { chat_id: 'oc_finance' });
    await adminLink(t, ella, 'fran', 'ou_fran');
  });
  afterAll(async () => {
    await t?.close();
    await oa?.close();
    await feishu?.close();
  });

  it("remind after 1 s, escalate after 2 s: reminder and escalation card arrive; the escalation group's click runs the call once", async () => {
    const agent = await createAgent('PO-ESC', {
      remind_after_s: 1,
      escalate_after_s: 2,
      escalate_to: { approvers: ['role:finance'], channel_id: financeChannel },
    });
    const run = openChat(t, ella.token, { agent_id: agent, message: 'pay PO-ESC' });
    const { confirmation_id: id } = (await run.next('confirmation_pending')).data;
    const reminder = await until(
      'the reminder',
      () => sentTo('oc_approvals', 'Reminder: approval still needed')[0],
      10_000,
    );
    expect(JSON.stringify(reminder.content)).toContain(id);
    const escalation = await until('the escalation card', () => sentTo('oc_finance', id)[0], 10_000);
    expect(escalation.content.header.title.content).toBe('Escalated: approval needed: oa__purchase_pay');
    expect(sentTo('oc_approvals', 'Reminder: approval still needed')).toHaveLength(1);
    expect(paysOf('PO-ESC')).toHaveLength(0);

    expect((await click(t, financeChannel, id, 'ou_fran')).ok).toBe(true);
    await run.finished;
    expect(paysOf('PO-ESC')).toHaveLength(1);
    const row = await statusOf(t, ella, id);
    expect(row).toMatchObject({
      status: 'approved',
      responded_by: 'Fran',
      responded_by_platform: 'feishu',
      escalation_channel_id: financeChannel,
    });
    expect(row.approvers).toEqual(['org_admins', 'role:finance']);
    expect(row.history.map((h: any) => [h.kind, h.by])).toEqual([
      ['reminded', 'system'],
      ['escalated', 'system'],
    ]);
    expect(row.history[1].detail).toMatchObject({
      channel_id: financeChannel,
      approvers: ['org_admins', 'role:finance'],
    });
    // The escalation card is replaced by its decided version too.
    await until('the escalation card marked decided', () =>
      feishu.patches.find((p) => p.messageId === escalation.messageId),
    );
  });

  it('before its escalation, the escalation group may not decide (the policy is org_admins)', async () => {
    // Escalation an hour away: on a loaded machine, a 2 s one could pass before this decision arrives.
    const agent = await createAgent('PO-ESC-LATER', {
      escalate_after_s: 3600,
      escalate_to: { approvers: ['role:finance'], channel_id: financeChannel },
    });
    const run = openChat(t, ella.token, { agent_id: agent, message: 'pay PO-ESC-LATER' });
    const { confirmation_id: id } = (await run.next('confirmation_pending')).data;
    const early = await t.request('POST', `/api/confirmations/${id}/decision`, {
      token: fran.token,
      body: { decision: 'approve' },
    });
    expect(early.status).toBe(403);
    expect((await click(t, financeChannel, id, 'ou_fran')).ok).toBe(false);
    expect((await statusOf(t, ella, id)).status).toBe('pending');
    const rejected = await t.request('POST', `/api/confirmations/${id}/decision`, {
      token: ella.token,
      body: { decision: 'reject' },
    });
    expect(rejected.status).toBe(200);
    await run.finished;
    expect(paysOf('PO-ESC-LATER')).toHaveLength(0);
  });

  it('no escalation configured: finance is refused, and a click on another channel decides nothing', async () => {
    const agent = await createAgent('PO-NOESC', {});
    const run = openChat(t, ella.token, { agent_id: agent, message: 'pay PO-NOESC' });
    const { confirmation_id: id } = (await run.next('confirmation_pending')).data;
    expect((await click(t, financeChannel, id, 'ou_fran')).ok).toBe(false);
    expect((await statusOf(t, ella, id)).status).toBe('pending');
    expect(
      (
        await t.request('POST', `/api/confirmations/${id}/decision`, {
          token: ella.token,
          body: { decision: 'reject' },
        })
      ).status,
    ).toBe(200);
    await run.finished;
    expect(paysOf('PO-NOESC')).toHaveLength(0);
  });

  it('an approver reassigns to a named user the policy allows: only that user decides now; the step is in the history', async () => {
    const agent = await createAgent('PO-RE', { approvers: ['org_admins', 'role:finance'] });
    const run = openChat(t, ella.token, { agent_id: agent, message: 'pay PO-RE' });
    const { confirmation_id: id } = (await run.next('confirmation_pending')).data;
    const reassign = (who: Person, body: Record<string, unknown>) =>
      t.request('POST', `/api/confirmations/${id}/reassign`, { token: who.token, body });

    expect((await reassign(gus, { to: 'fran' })).status).toBe(403); // not an approver of this request
    expect((await reassign(ella, { to: 'nobody-here' })).status).toBe(404);
    expect((await reassign(ella, { to: 'gus' })).status).toBe(400); // the policy does not allow gus to approve
    const moved = await reassign(ella, { to: 'fran', reason: 'finance owns this vendor' });
    expect(moved.status).toBe(200);
    expect(moved.body.approvers).toEqual(['users:fran']);
    await until('the reassignment notice', () => sentTo('oc_approvals', 'reassigned approval request')[0]);

    expect(
      (
        await t.request('POST', `/api/confirmations/${id}/decision`, {
          token: ella.token,
          body: { decision: 'approve' },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await t.request('POST', `/api/confirmations/${id}/decision`, {
          token: fran.token,
          body: { decision: 'approve' },
        })
      ).status,
    ).toBe(200);
    await run.finished;
    expect(paysOf('PO-RE')).toHaveLength(1);
    const row = await statusOf(t, ella, id);
    expect(row.history).toEqual([
      expect.objectContaining({
        kind: 'reassigned',
        by: 'Ella',
        detail: { from: ['org_admins', 'role:finance'], to: 'fran', reason: 'finance owns this vendor' },
      }),
    ]);
    expect((await reassign(fran, { to: 'gus' })).status).toBe(409); // decided already
  });

  it('bad escalation settings are a 400 naming the key; nothing is saved', async () => {
    const res = await t.request('POST', '/api/agents', {
      token: ella.token,
      body: {
        name: 'bad-esc',
        model_config_json: {
          model: { provider: 'scripted', script: [{ content: 'x' }] },
          confirmation: { remind_after_s: -1, escalate_after_s: 5 },
        },
      },
    });
    expect(res.status).toBe(400);
    const message = [res.body.message].flat().join(' ');
    expect(message).toMatch(/confirmation\.remind_after_s must be a number of seconds/);
    expect(message).toMatch(/escalate_after_s needs escalate_to/);
  });
});
