import pg from 'pg';
import { startFakeFeishu, type FakeFeishu } from '../fakes/fake-feishu.js';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { until } from '../support/eventually.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { FEISHU_APP, feishuChannel, person, type Person } from './approver-support.js';
import { OA_ACTIONS, openChat, type LiveChat } from './runtime-helpers.js';

/**
 * Approve for this run (issue #20, acceptance 4): a standing approval for `args.amount <= 70000`, max 3 calls — the
 * next two matching calls run without cards, a 70 001 call asks again, and so does a call after the third; the stream
 * and the audit name the standing approval.
 */
describe('standing approval for the run (Feishu fake, PostgreSQL)', () => {
  let t: TestApp;
  let oa: HttpFake;
  let feishu: FakeFeishu;
  let admin: Person;
  let channelId: string;
  let db: pg.Client;

  const pay = (id: string, amount: number) => ({ tool_calls: [{ name: 'oa__purchase_pay', args: { id, amount } }] });
  const createAgent = async (script: unknown[]) => {
    const res = await t.request('POST', '/api/agents', {
      token: admin.token,
      body: {
        name: `standing-${Math.random()}`,
        model_config_json: {
          tools: ['oa__*'],
          model: { provider: 'scripted', script },
          confirmation: { channel_id: channelId, approvers: ['org_admins'] },
        },
      },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const decide = (id: string, body: Record<string, unknown>) =>
    t.request('POST', `/api/confirmations/${id}/decision`, { token: admin.token, body });
  const pendings = (run: LiveChat) => run.events.filter((e) => e.event === 'confirmation_pending').map((e) => e.data);
  const nthPending = (run: LiveChat, n: number) => until(`confirmation ${n}`, () => pendings(run)[n - 1], 15_000);
  const paid = (po: string) => oa.requests.filter((r) => r.path === `/purchases/${po}/pay`).map((r) => r.body.amount);

  beforeAll(async () => {
    oa = await startHttpFake(() => ({ paid: true }));
    feishu = await startFakeFeishu(FEISHU_APP);
    t = await startTestApp();
    admin = await person(t, 'sam', 'acme-standing', ['admin']);
    expect(
      (
        await t.request('POST', '/api/connectors', {
          token: admin.token,
          body: { name: 'oa', base_url: oa.url, actions: OA_ACTIONS },
        })
      ).status,
    ).toBe(201);
    channelId = await feishuChannel(t, admin, feishu);
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await t?.close();
    await oa?.close();
    await feishu?.close();
  });

  it('max 3 for args.amount <= 70000: two more calls pass without cards, 70 001 asks again, the fourth asks again', async () => {
    const agent = await createAgent([
      pay('S-1', 68_000),
      pay('S-2', 69_000),
      pay('S-3', 70_001),
      pay('S-4', 60_000),
      pay('S-5', 55_000),
      { content: 'done' },
    ]);
    const cardsBefore = feishu.sent.length;
    const run = openChat(t, admin.token, { agent_id: agent, message: 'pay them all' });
    const first = await nthPending(run, 1);
    const granted = await decide(first.confirmation_id, {
      decision: 'approve',
      standing: { when: 'args.amount <= 70000', max_calls: 3 },
    });
    expect(granted.status).toBe(200);
    const standing = granted.body.standing_approval;
    expect(standing).toMatchObject({
      when: 'args.amount <= 70000',
      max_calls: 3,
      uses: 1,
      granted_by: 'Sam',
      tool: 'oa__purchase_pay',
    });

    // S-2 passes under it; S-3 (70 001) is outside the bound and asks again.
    const third = await nthPending(run, 2);
    expect(third.args).toEqual({ id: 'S-3', amount: 70_001 });
    expect(paid('S-2')).toEqual([69_000]);
    expect((await decide(third.confirmation_id, { decision: 'reject', reason: 'over the bound' })).status).toBe(200);
    // S-4 passes (third use); S-5 finds the approval used up and asks again.
    const fifth = await nthPending(run, 3);
    expect(fifth.args).toEqual({ id: 'S-5', amount: 55_000 });
    expect((await decide(fifth.confirmation_id, { decision: 'reject' })).status).toBe(200);
    const events = await run.finished;

    expect([paid('S-1'), paid('S-2'), paid('S-3'), paid('S-4'), paid('S-5')]).toEqual([
      [68_000],
      [69_000],
      [],
      [60_000],
      [],
    ]);
    // Three cards (S-1, S-3, S-5), none for the calls that ran under the standing approval.
    await until('three cards', () => feishu.sent.length - cardsBefore === 3 || undefined);
    const cardFor = (confirmationId: string) =>
      feishu.sent.slice(cardsBefore).filter((m) => JSON.stringify(m.content).includes(confirmationId));
    expect([first, third, fifth].map((p) => cardFor(p.confirmation_id).length)).toEqual([1, 1, 1]);

    const used = events.filter((e) => e.event === 'standing_approval_used').map((e) => e.data);
    expect(used.map((u) => [u.standing_approval_id, u.uses, u.approved_by])).toEqual([
      [standing.id, 2, 'Sam'],
      [standing.id, 3, 'Sam'],
    ]);
    const gateEffects = events
      .filter((e) => e.event === 'hook' && e.data.hook === 'confirmation_gate')
      .map((e) => e.data.side_effects[0]);
    expect(gateEffects.filter((s) => s?.includes(`standing approval #${standing.id}`))).toHaveLength(2);

    const runId = events[0].data.run_id;
    const audit = await until('five audit rows', async () => {
      const res = await t.request('GET', `/api/audit/connector-calls?run_id=${runId}`, { token: admin.token });
      return res.body.length >= 5 ? (res.body as Array<Record<string, any>>) : undefined;
    });
    const byCall = new Map(audit.map((r) => [r.call_id, r]));
    const callOf = (po: string) => events.find((e) => e.event === 'tool_call' && e.data.args.id === po)!.data.call_id;
    expect(byCall.get(callOf('S-2'))!.approved_by).toBe(`Sam (standing approval #${standing.id})`);
    expect(byCall.get(callOf('S-4'))!.approved_by).toBe(`Sam (standing approval #${standing.id})`);
    expect(byCall.get(callOf('S-1'))!.approved_by).toBe(`Sam (confirmation ${first.confirmation_id})`);
    expect(byCall.get(callOf('S-3'))).toMatchObject({ blocked_by: 'confirmation_gate', approved_by: null });
    const { rows } = await db.query(`SELECT uses, max_calls FROM standing_approvals WHERE id = $1`, [standing.id]);
    expect(rows[0]).toEqual({ uses: 3, max_calls: 3 });
  });

  it('a grant whose bound does not hold for the call, bad CEL, or with a rejection is a 400 and decides nothing', async () => {
    const agent = await createAgent([pay('S-X', 68_000), { content: 'done' }]);
    const run = openChat(t, admin.token, { agent_id: agent, message: 'pay S-X' });
    const pending = await nthPending(run, 1);
    for (const [body, message] of [
      [
        { decision: 'approve', standing: { when: 'args.amount <= 60000' } },
        /does not hold for the call being approved/,
      ],
      [{ decision: 'approve', standing: { when: 'args.amount <=' } }, /not valid CEL/],
      [{ decision: 'reject', standing: { when: 'args.amount <= 70000' } }, /only be given with decision "approve"/],
      [{ decision: 'approve', standing: { when: 'true', max_calls: 0 } }, /max_calls must be an integer/],
    ] as const) {
      const res = await decide(pending.confirmation_id, body);
      expect(res.status).toBe(400);
      expect([res.body.message].flat().join(' ')).toMatch(message);
    }
    expect(
      (await t.request('GET', `/api/confirmations/${pending.confirmation_id}`, { token: admin.token })).body,
    ).toMatchObject({
      status: 'pending',
      standing_approval: null,
    });
    expect((await decide(pending.confirmation_id, { decision: 'reject' })).status).toBe(200);
    await run.finished;
  });
});
