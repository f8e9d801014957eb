import { startFakeFeishu, type FakeFeishu } from '../fakes/fake-feishu.js';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import pg from 'pg';
import { until } from '../support/eventually.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { adminLink, click, FEISHU_APP, feishuChannel, person, type Person } from './approver-support.js';
import { OA_ACTIONS, openChat, type LiveChat } from './runtime-helpers.js';

const METRICS_TOKEN = 'integrity-metrics-token-0123456789';

/**
 * What the approver sees is what runs (issue #28, break 8): `confirmation_requests.args` edited in the database with
 * its digest untouched showed `amount: 500` in the inbox and on the card, and after approval 69 000 was paid. Now
 * the args people are shown are checked against the stored digest: a mismatch is never rendered, refuses the decision
 * (409), expires the request (the call is blocked), chains an `integrity_failed` event and counts a metric.
 */
describe('approval integrity: shown args are checked against the stored digest (PostgreSQL, fake Feishu)', () => {
  let t: TestApp;
  let oa: HttpFake;
  let feishu: FakeFeishu;
  let db: pg.Client;
  let ada: Person;
  let channelId: string;

  const paysOf = (po: string) => oa.requests.filter((r) => r.path === `/purchases/${po}/pay`);
  const get = (path: string) => t.request('GET', path, { token: ada.token });
  /** A chat paying `po` 69 000 whose pending request's args are then rewritten to 500 in the database. */
  const tamperedRun = async (po: string): Promise<{ run: LiveChat; id: string }> => {
    const agent = await t.request('POST', '/api/agents', {
      token: ada.token,
      body: {
        name: `integrity-${po}`,
        model_config_json: {
          tools: ['oa__*'],
          model: {
            provider: 'scripted',
            script: [
              { tool_calls: [{ name: 'oa__purchase_pay', args: { id: po, amount: 69_000 } }] },
              { content: 'done' },
            ],
          },
          confirmation: { channel_id: channelId, approvers: ['org_admins'] },
        },
      },
    });
    expect(agent.status).toBe(201);
    const run = openChat(t, ada.token, { agent_id: agent.body.id, message: `pay ${po}` });
    const id = (await run.next('confirmation_pending')).data.confirmation_id as string;
    await until('the card', () => feishu.sent.find((m) => JSON.stringify(m.content).includes(id)));
    await db.query(`UPDATE confirmation_requests SET args = $2 WHERE id = $1`, [
      id,
      JSON.stringify({ id: po, amount: 500 }),
    ]);
    return { run, id };
  };

  beforeAll(async () => {
    oa = await startHttpFake(() => ({ paid: true }));
    feishu = await startFakeFeishu(FEISHU_APP);
    t = await startTestApp({ METRICS_TOKEN });
    ada = await person(t, 'ada', 'acme-integrity', ['admin']);
    const connector = { name: 'oa', base_url: oa.url, actions: OA_ACTIONS };
    expect((await t.request('POST', '/api/connectors', { token: ada.token, body: connector })).status).toBe(201);
    channelId = await feishuChannel(t, ada, feishu, { chat_id: 'oc_integrity' });
    await adminLink(t, ada, 'ada', 'ou_ada');
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await t?.close();
    await oa?.close();
    await feishu?.close();
  });

  it('break 8: the inbox never shows the edited amount as valid; approving is a 409; nothing is paid; the alarm is chained', async () => {
    const { run, id } = await tamperedRun('PO-I8');
    const listed = (await get('/api/confirmations?status=pending')).body.find((r: { id: string }) => r.id === id);
    const detail = (await get(`/api/confirmations/${id}`)).body;
    for (const shown of [listed, detail]) {
      expect(shown).toMatchObject({ args_intact: false });
      expect(JSON.stringify(shown.args)).not.toContain('500');
      expect(shown.args).toEqual({ integrity_check_failed: expect.stringMatching(/do not match what was requested/) });
    }

    const approved = await t.request('POST', `/api/confirmations/${id}/decision`, {
      token: ada.token,
      body: { decision: 'approve' },
    });
    expect(approved.status).toBe(409);
    expect(approved.body.message).toMatch(/its stored args no longer match the digest of the requested call/);
    const obs = (await run.next('observation')).data;
    expect(obs).toMatchObject({ blocked: true, blocked_by: 'confirmation_gate' });
    expect(obs.content).toMatch(/integrity check failed/);
    await run.finished;
    expect(paysOf('PO-I8')).toHaveLength(0);
    expect((await get(`/api/confirmations/${id}`)).body).toMatchObject({
      status: 'expired',
      reason: expect.stringMatching(/integrity/),
    });

    const trail = (await get(`/api/audit/events?entity_type=confirmation&entity_id=${id}`)).body.items as Array<
      Record<string, any>
    >;
    const alarm = trail.find((e) => e.action === 'confirmation.integrity_failed');
    expect(alarm).toMatchObject({
      kind: 'confirmation',
      actor: ada.userId,
      payload: { confirmation_id: id, tool: 'oa__purchase_pay' },
    });
    expect(JSON.stringify(alarm)).not.toContain('69000');
    expect(trail.map((e) => e.action)).toContain('confirmation.expired');
    expect((await get('/api/audit/verify')).body).toMatchObject({ valid: true });

    // The decided card is rendered from the checked row: the edited amount is not on it either.
    const card = feishu.sent.find((m) => JSON.stringify(m.content).includes(id));
    const patch = await until('the decided card', () => feishu.patches.find((p) => p.messageId === card?.messageId));
    expect(JSON.stringify(patch.content)).not.toContain('500');
    const metrics = await (
      await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text();
    expect(metrics).toMatch(/warden_approval_integrity_failures_total [1-9]/);
  });

  it('a click on the Feishu card of a tampered request decides nothing: refused, expired, not paid', async () => {
    const { run, id } = await tamperedRun('PO-I8F');
    const clicked = await click(t, channelId, id, 'ou_ada');
    expect(clicked).toMatchObject({ ok: false, message: expect.stringMatching(/no longer match the digest/) });
    await run.finished;
    expect(paysOf('PO-I8F')).toHaveLength(0);
    expect((await get(`/api/confirmations/${id}`)).body.status).toBe('expired');
  });
});
