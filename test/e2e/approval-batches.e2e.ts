import { feishuCardAction, feishuRequest, startFakeFeishu, type FakeFeishu } from '../fakes/fake-feishu.js';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { until } from '../support/eventually.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { adminLink, click, FEISHU_APP, feishuChannel, person, statusOf, type Person } from './approver-support.js';
import { OA_ACTIONS, openChat, type LiveChat } from './runtime-helpers.js';

/**
 * One card per turn (issue #20, acceptance 2): a model turn with three gated calls -> one Feishu card listing all
 * three, each with its own buttons; approve two, reject one -> two executions, one block; the card ends showing all
 * three outcomes. Each call keeps its own row and verdict.
 */
describe('one approval card per model turn (Feishu fake, PostgreSQL)', () => {
  let t: TestApp;
  let oa: HttpFake;
  let feishu: FakeFeishu;
  let ada: Person;
  let channelId: string;

  const threePays = (prefix: string) => ({
    tool_calls: [1, 2, 3].map((n) => ({
      name: 'oa__purchase_pay',
      args: { id: `${prefix}-${n}`, amount: 60_000 + n },
    })),
  });
  const createAgent = async (prefix: string) => {
    const res = await t.request('POST', '/api/agents', {
      token: ada.token,
      body: {
        name: `batch-${prefix}`,
        model_config_json: {
          tools: ['oa__*'],
          model: { provider: 'scripted', script: [threePays(prefix), { content: 'done' }] },
          confirmation: { channel_id: channelId, approvers: ['org_admins'] },
        },
      },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const paysOf = (po: string) => oa.requests.filter((r) => r.path === `/purchases/${po}/pay`);
  const pendings = (run: LiveChat) =>
    until('three pending calls', () => {
      const all = run.events.filter((e) => e.event === 'confirmation_pending').map((e) => e.data);
      return all.length === 3 ? all : undefined;
    });
  /** The turn's card: the one message that names any of its requests, and what it shows now (after patches). */
  const cardsNaming = (ids: string[]) =>
    feishu.sent.filter((m) => ids.some((id) => JSON.stringify(m.content).includes(id)));
  const latest = (messageId: string) => {
    const patches = feishu.patches.filter((p) => p.messageId === messageId);
    return JSON.stringify(
      patches.length ? patches.at(-1)!.content : feishu.sent.find((m) => m.messageId === messageId)!.content,
    );
  };

  beforeAll(async () => {
    oa = await startHttpFake(() => ({ paid: true }));
    feishu = await startFakeFeishu(FEISHU_APP);
    t = await startTestApp();
    ada = await person(t, 'ada', 'acme-batch', ['admin']);
    expect(
      (
        await t.request('POST', '/api/connectors', {
          token: ada.token,
          body: { name: 'oa', base_url: oa.url, actions: OA_ACTIONS },
        })
      ).status,
    ).toBe(201);
    channelId = await feishuChannel(t, ada, feishu);
    await adminLink(t, ada, 'ada', 'ou_ada');
  });
  afterAll(async () => {
    await t?.close();
    await oa?.close();
    await feishu?.close();
  });

  it('three gated calls -> one card; approve two, reject one -> two payments, one block; the card shows all three outcomes', async () => {
    const run = openChat(t, ada.token, { agent_id: await createAgent('B'), message: 'pay B-1..3' });
    const pending = await pendings(run);
    const ids = pending.map((p) => p.confirmation_id as string);
    const card = await until('one card listing all three calls', () => {
      const cards = cardsNaming(ids);
      return cards.length === 1 && ids.every((id) => latest(cards[0].messageId).includes(id)) ? cards[0] : undefined;
    });
    expect(latest(card.messageId)).toContain('Approval needed: 3 calls (3 pending)');
    const byPo = new Map(pending.map((p) => [p.args.id as string, p.confirmation_id as string]));

    expect((await click(t, channelId, byPo.get('B-1')!, 'ou_ada', 'approve')).ok).toBe(true);
    expect((await click(t, channelId, byPo.get('B-3')!, 'ou_ada', 'reject')).ok).toBe(true);
    expect((await click(t, channelId, byPo.get('B-2')!, 'ou_ada', 'approve')).ok).toBe(true);
    const events = await run.finished;

    expect([paysOf('B-1').length, paysOf('B-2').length, paysOf('B-3').length]).toEqual([1, 1, 0]);
    const observations = events.filter((e) => e.event === 'observation').map((e) => [e.data.args.id, e.data.blocked]);
    expect(observations.sort()).toEqual([
      ['B-1', false],
      ['B-2', false],
      ['B-3', true],
    ]);
    expect(cardsNaming(ids)).toHaveLength(1);
    const final = await until('the card showing all three outcomes', () => {
      const text = latest(card.messageId);
      return text.includes('Decided: 3 calls') ? text : undefined;
    });
    expect(final.match(/Approved by Ada/g)).toHaveLength(2);
    expect(final.match(/Rejected by Ada/g)).toHaveLength(1);
    expect(final).not.toContain('"Approve"');
    for (const [po, status] of [
      ['B-1', 'approved'],
      ['B-2', 'approved'],
      ['B-3', 'rejected'],
    ]) {
      expect(await statusOf(t, ada, byPo.get(po)!)).toMatchObject({ status, batch_key: expect.any(String) });
    }
  });

  it('"Approve all" on the card decides every pending call of the turn, each with its own verdict', async () => {
    const run = openChat(t, ada.token, { agent_id: await createAgent('C'), message: 'pay C-1..3' });
    const pending = await pendings(run);
    const ids = pending.map((p) => p.confirmation_id as string);
    await until(
      'one card listing all three',
      () => cardsNaming(ids).length === 1 && ids.every((id) => latest(cardsNaming(ids)[0].messageId).includes(id)),
    );
    const r = feishuRequest(
      feishuCardAction({
        verificationToken: 'vt-pol',
        value: { confirmation_id: ids[0], decision: 'approve', all: true },
        openId: 'ou_ada',
      }),
      {},
    );
    const res = await t.request('POST', `/api/channels/${channelId}/callback`, { body: r.body, headers: r.headers });
    expect(res.body.toast).toMatchObject({ type: 'success', content: 'Approved 3 calls' });
    await run.finished;
    expect([paysOf('C-1').length, paysOf('C-2').length, paysOf('C-3').length]).toEqual([1, 1, 1]);
    const rows = await Promise.all(ids.map((id) => statusOf(t, ada, id)));
    expect(rows.map((row) => row.status)).toEqual(['approved', 'approved', 'approved']);
    expect(new Set(rows.map((row) => row.batch_key)).size).toBe(1);
  });
});

describe('one card per turn: a claim whose card was never sent (its server died) is taken again', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a fresh claim is exclusive; an unsent claim older than 15 s can be taken again; a sent one never', async () => {
    const { BatchStore } = await import('../../libs/confirmations/src/batch/batch.store.js');
    const store = t.app.get(BatchStore);
    const { DataSource } = await import('typeorm');
    const db = t.app.get(DataSource);
    const admin = await t.token('zed', 'acme-claim', ['admin']);
    const orgId = (await t.request('GET', '/api/me', { token: admin })).body.org_id;
    expect(await store.claim('run-a:call-1', orgId, 'inbox')).toBe(true);
    expect(await store.claim('run-a:call-1', orgId, 'inbox')).toBe(false);
    await db.query(
      `UPDATE confirmation_batches SET created_at = now() - interval '20 seconds' WHERE batch_key = 'run-a:call-1'`,
    );
    expect(await store.claim('run-a:call-1', orgId, 'inbox')).toBe(true);
    expect(await store.claim('run-a:call-1', orgId, 'inbox')).toBe(false);
    await store.recordCard('run-a:call-1', { platformMessageId: 'om_1' });
    await db.query(
      `UPDATE confirmation_batches SET created_at = now() - interval '20 seconds' WHERE batch_key = 'run-a:call-1'`,
    );
    expect(await store.claim('run-a:call-1', orgId, 'inbox')).toBe(false);
  });
});
