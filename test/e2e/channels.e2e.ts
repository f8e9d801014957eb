import { ChannelsService, type ApprovalDecisionSink, type DecisionOutcome } from '@warden/channels';
import { DataSource } from 'typeorm';
import { feishuCardAction, feishuRequest, startFakeFeishu, type FakeFeishu } from '../fakes/fake-feishu.js';
import { slackInteraction, startFakeSlack, type FakeSlack } from '../fakes/fake-slack.js';
import { startFakeWecom, wecomCardEvent, wecomEchoQuery, type FakeWecom } from '../fakes/fake-wecom.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { until } from '../support/eventually.js';

const CONF = '6f1c2b1e-8d2a-4a51-9a43-1f2e3d4c5b6a';
const FEISHU = {
  appId: 'cli_test',
  appSecret: 'feishu-app-secret-XYZ',
  verificationToken: 'feishu-verif-TOKEN',
  encryptKey: 'feishu-encrypt-KEY',
};
const SLACK = { botToken: 'xoxb-slack-bot-TOKEN', signingSecret: 'slack-signing-SECRET' };
const WECOM = {
  corpId: 'ww-corp-1',
  corpSecret: 'wecom-corp-SECRET',
  token: 'wecomTOKEN',
  encodingAesKey: 'jWmYm7qr5nMoAUwZRjGtBxmz3KA1tkAj3ykkR6q2B2C',
};
const ALL_SECRETS = [
  FEISHU.appSecret,
  FEISHU.verificationToken,
  FEISHU.encryptKey,
  SLACK.botToken,
  SLACK.signingSecret,
  WECOM.corpSecret,
  WECOM.token,
  WECOM.encodingAesKey,
];

/** Records what the decision service was asked and answers what the test says. */
class RecordingSink implements ApprovalDecisionSink {
  calls: Array<Parameters<ApprovalDecisionSink['decideFromChannel']>[0]> = [];
  answer: (input: Parameters<ApprovalDecisionSink['decideFromChannel']>[0]) => DecisionOutcome = (input) => ({
    ok: true,
    message: `${input.decision === 'approve' ? 'Approved' : 'Rejected'} by ${input.actor.externalId}`,
    decided: {
      confirmationId: input.confirmationId,
      tool: 'oa__purchase_pay',
      args: { amount: 60000 },
      status: input.decision === 'approve' ? 'approved' : 'rejected',
      decidedBy: input.actor.externalId,
      decidedAt: new Date(),
    },
  });
  decideFromChannel(input: Parameters<ApprovalDecisionSink['decideFromChannel']>[0]): Promise<DecisionOutcome> {
    this.calls.push(input);
    // A throwing answer becomes a rejected promise, as from the real (async) service.
    return new Promise((resolve) => resolve(this.answer(input)));
  }
}

describe('channels (e2e)', () => {
  let t: TestApp;
  let feishu: FakeFeishu;
  let slack: FakeSlack;
  let wecom: FakeWecom;
  let admin: string;
  let sink: RecordingSink;
  const ids: Record<string, string> = {};

  const create = (body: unknown, token = admin) => t.request('POST', '/api/channels', { token, body });

  beforeAll(async () => {
    [t, feishu, slack, wecom] = await Promise.all([
      startTestApp({ PUBLIC_URL: 'https://warden.example.com' }),
      startFakeFeishu(FEISHU),
      startFakeSlack(SLACK.botToken),
      startFakeWecom(WECOM),
    ]);
    admin = await t.token('alice', 'acme', ['admin']);
    const made = await Promise.all([
      create({
        type: 'feishu',
        name: 'ops feishu',
        config: {
          app_id: FEISHU.appId,
          app_secret: FEISHU.appSecret,
          chat_id: 'oc_ops',
          verification_token: FEISHU.verificationToken,
          base_url: feishu.url,
        },
      }),
      create({
        type: 'feishu',
        name: 'encrypted feishu',
        config: {
          app_id: FEISHU.appId,
          app_secret: FEISHU.appSecret,
          chat_id: 'oc_ops',
          verification_token: FEISHU.verificationToken,
          encrypt_key: FEISHU.encryptKey,
          base_url: feishu.url,
        },
      }),
      create({
        type: 'slack',
        name: 'ops slack',
        config: {
          bot_token: SLACK.botToken,
          signing_secret: SLACK.signingSecret,
          channel: 'C-OPS',
          base_url: slack.apiUrl,
        },
      }),
      create({
        type: 'wecom',
        name: 'ops wecom',
        config: {
          corp_id: WECOM.corpId,
          corp_secret: WECOM.corpSecret,
          agent_id: 1000002,
          token: WECOM.token,
          encoding_aes_key: WECOM.encodingAesKey,
          to_user: 'zhangsan|lisi',
          base_url: wecom.url,
        },
      }),
      create({ type: 'inbox', name: 'inbox' }),
    ]);
    for (const res of made) expect(res.status).toBe(201);
    [ids.feishu, ids.feishuEnc, ids.slack, ids.wecom, ids.inbox] = made.map((r) => r.body.id);
    sink = new RecordingSink();
    t.app.get(ChannelsService).setDecisionSink(sink);
  });
  afterAll(async () => {
    await Promise.all([t?.close(), feishu?.close(), slack?.close(), wecom?.close()]);
  });
  beforeEach(() => {
    sink.calls = [];
    sink.answer = new RecordingSink().answer;
  });

  describe('CRUD', () => {
    it('returns the channel with its callback URL and no secret anywhere, and stores secrets encrypted', async () => {
      const one = await t.request('GET', `/api/channels/${ids.feishuEnc}`, { token: admin });
      expect(one.status).toBe(200);
      expect(one.body).toMatchObject({
        id: ids.feishuEnc,
        type: 'feishu',
        name: 'encrypted feishu',
        is_default: false,
        callback_url: `https://warden.example.com/api/channels/${ids.feishuEnc}/callback`,
        config: { app_id: FEISHU.appId, chat_id: 'oc_ops', base_url: feishu.url },
        secrets_set: ['app_secret', 'encrypt_key', 'verification_token'],
      });
      const list = await t.request('GET', '/api/channels', { token: admin });
      expect(list.body).toHaveLength(5);
      const rows = await t.app
        .get(DataSource)
        .query(`SELECT config::text || coalesce(secrets_enc, '') AS stored FROM channels`);
      for (const text of [one.text, list.text, ...rows.map((r: { stored: string }) => r.stored)]) {
        for (const secret of ALL_SECRETS) expect(text).not.toContain(secret);
      }
    });

    it('400 names each missing or bad key, and nothing is created', async () => {
      const res = await create({
        type: 'slack',
        name: 'bad',
        config: { channel: 'C1', base_url: 'not a url', extra: 1 },
      });
      expect(res.status).toBe(400);
      expect(res.body.problems).toEqual(
        expect.arrayContaining([
          'config.bot_token is required',
          'config.signing_secret is required',
          'config.base_url must be an http(s) URL',
          expect.stringMatching(/config.extra is not a known key/),
        ]),
      );
      expect((await create({ type: 'teams', name: 'x', config: {} })).status).toBe(400);
      expect((await t.request('GET', '/api/channels', { token: admin })).body).toHaveLength(5);
    });

    it('a member cannot create or read channels; another org gets 404 for ours', async () => {
      const member = await t.token('bob', 'acme', []);
      expect((await create({ type: 'inbox', name: 'mine' }, member)).status).toBe(403);
      const other = await t.token('eve', 'evilcorp', ['admin']);
      expect((await t.request('GET', `/api/channels/${ids.slack}`, { token: other })).status).toBe(404);
      expect(
        (await t.request('PUT', `/api/channels/${ids.slack}`, { token: other, body: { name: 'pwned' } })).status,
      ).toBe(404);
      expect((await t.request('DELETE', `/api/channels/${ids.slack}`, { token: other })).status).toBe(404);
      expect((await t.request('POST', `/api/channels/${ids.slack}/test`, { token: other })).status).toBe(404);
      expect((await t.request('GET', `/api/channels`, { token: other })).body).toEqual([]);
      expect((await t.request('GET', `/api/channels/not-a-uuid`, { token: admin })).status).toBe(404);
      await expect(
        t.app
          .get(ChannelsService)
          .resolveForDelivery((await t.request('GET', '/api/me', { token: other })).body.org_id, ids.slack),
      ).rejects.toThrow(/not found/);
    });

    it('PUT merges config keeping write-only secrets; is_default drives delivery; delete falls back to the inbox', async () => {
      const extra = await create({
        type: 'slack',
        name: 'temp',
        config: {
          bot_token: SLACK.botToken,
          signing_secret: SLACK.signingSecret,
          channel: 'C-TEMP',
          base_url: slack.apiUrl,
        },
      });
      const put = await t.request('PUT', `/api/channels/${extra.body.id}`, {
        token: admin,
        body: { name: 'renamed', config: { channel: 'C-NEW' }, is_default: true },
      });
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({
        name: 'renamed',
        is_default: true,
        config: { channel: 'C-NEW' },
        secrets_set: ['bot_token', 'signing_secret'],
      });
      const orgId = (await t.request('GET', '/api/me', { token: admin })).body.org_id;
      const svc = t.app.get(ChannelsService);
      const resolved = await svc.resolveForDelivery(orgId);
      expect(resolved.record).toMatchObject({
        id: extra.body.id,
        type: 'slack',
        config: { bot_token: SLACK.botToken, channel: 'C-NEW' },
      });
      const bad = await t.request('PUT', `/api/channels/${extra.body.id}`, {
        token: admin,
        body: { config: { bot_token: null } },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.problems).toEqual(['config.bot_token is required']);
      expect((await t.request('DELETE', `/api/channels/${extra.body.id}`, { token: admin })).status).toBe(204);
      expect((await svc.resolveForDelivery(orgId)).record).toMatchObject({ id: 'inbox', type: 'inbox' });
      expect((await svc.resolveForDelivery(orgId, ids.feishu)).record.type).toBe('feishu');
    });
  });

  describe('delivery', () => {
    it('POST /test sends a test approval card to every platform (a test notification to the inbox)', async () => {
      for (const id of [ids.feishu, ids.slack, ids.wecom, ids.inbox]) {
        const res = await t.request('POST', `/api/channels/${id}/test`, { token: admin });
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ ok: true });
      }
      expect(feishu.sent.at(-1)).toMatchObject({ chatId: 'oc_ops', msgType: 'interactive' });
      expect(JSON.stringify(feishu.sent.at(-1)!.content)).toContain('example__test_card');
      expect(JSON.stringify(feishu.sent.at(-1)!.content)).toMatch(/Approve/);
      expect(slack.posted.at(-1)).toMatchObject({ channel: 'C-OPS' });
      expect(JSON.stringify(slack.posted.at(-1))).toContain('example__test_card');
      expect(wecom.sent.at(-1)).toMatchObject({ touser: 'zhangsan|lisi', msgtype: 'template_card', agentid: 1000002 });
      const inbox = await t.request('GET', '/api/notifications', { token: admin });
      expect(inbox.body[0]).toMatchObject({
        channel_id: ids.inbox,
        text: expect.stringContaining('Warden test message'),
      });
    });

    it('reports a platform refusal instead of pretending', async () => {
      feishu.failSends({ code: 230002, msg: 'Bot/User can NOT be out of the chat.' });
      slack.failPosts('channel_not_found');
      wecom.failSends({ errcode: 81013, errmsg: 'user & party & tag all invalid' });
      try {
        const results = await Promise.all(
          [ids.feishu, ids.slack, ids.wecom].map((id) =>
            t.request('POST', `/api/channels/${id}/test`, { token: admin }),
          ),
        );
        expect(results.map((r) => r.body)).toEqual([
          { ok: false, error: expect.stringContaining('230002') },
          { ok: false, error: expect.stringContaining('channel_not_found') },
          { ok: false, error: expect.stringContaining('81013') },
        ]);
      } finally {
        feishu.failSends(null);
        slack.failPosts(null);
        wecom.failSends(null);
      }
      const svc = t.app.get(ChannelsService);
      const orgId = (await t.request('GET', '/api/me', { token: admin })).body.org_id;
      const { record, impl } = await svc.resolveForDelivery(orgId, ids.feishu);
      feishu.failSends({ code: 230002, msg: 'Bot/User can NOT be out of the chat.' });
      await expect(impl.sendApprovalCard(record, card())).rejects.toThrow(
        /Feishu refused the approval card: code 230002/,
      );
      feishu.failSends(null);
    });

    it('WeCom fetches a new token once when the old one expired (42001)', async () => {
      const before = wecom.tokenRequests.length;
      wecom.expireTokenOnce();
      expect((await t.request('POST', `/api/channels/${ids.wecom}/test`, { token: admin })).body).toMatchObject({
        ok: true,
      });
      expect(wecom.tokenRequests.length).toBe(before + 1);
      expect((await t.request('POST', `/api/channels/${ids.wecom}/test`, { token: admin })).body).toMatchObject({
        ok: true,
      });
      expect(wecom.tokenRequests.length).toBe(before + 1);
    });

    it('approval cards carry the confirmation id on each platform and are replaced by the decided card', async () => {
      const svc = t.app.get(ChannelsService);
      const orgId = (await t.request('GET', '/api/me', { token: admin })).body.org_id;
      const decided = {
        confirmationId: CONF,
        tool: 'oa__purchase_pay',
        args: { amount: 60000 },
        status: 'approved' as const,
        decidedBy: 'alice',
        decidedAt: new Date(),
      };
      for (const id of [ids.feishu, ids.slack, ids.wecom, ids.inbox]) {
        const { record, impl } = await svc.resolveForDelivery(orgId, id);
        const sent = await impl.sendApprovalCard(record, card());
        await impl.markDecided(record, sent, decided);
        if (record.type === 'inbox') expect(sent).toEqual({});
      }
      const fcard = feishu.sent.at(-1)!;
      expect(JSON.stringify(fcard.content)).toContain(`"confirmation_id":"${CONF}"`);
      expect(fcard.uuid).toBe(CONF);
      expect(feishu.patches.at(-1)).toMatchObject({ messageId: fcard.messageId });
      expect(JSON.stringify(feishu.patches.at(-1)!.content)).toContain('Approved by:** alice');
      expect(JSON.stringify(slack.posted.at(-1)!.blocks)).toContain(CONF);
      expect(slack.updates.at(-1)).toMatchObject({
        ts: slack.posted.at(-1)!.ts,
        text: expect.stringContaining('Approved by alice'),
      });
      const wcard = wecom.sent.at(-1)!;
      expect(wcard.template_card).toMatchObject({ card_type: 'button_interaction', task_id: CONF });
      expect(wcard.template_card.button_list.map((b: { key: string }) => b.key)).toEqual([
        `approve:${CONF}`,
        `reject:${CONF}`,
      ]);
      expect(wecom.updates.at(-1)).toMatchObject({
        userids: ['zhangsan', 'lisi'],
        agentid: 1000002,
        response_code: expect.stringMatching(/^rc-/),
        button: { replace_name: 'Approved by alice' },
      });
    });
  });

  describe('Feishu callbacks', () => {
    const post = (id: string, r: { body: string; headers: Record<string, string> }) =>
      t.request('POST', `/api/channels/${id}/callback`, { body: r.body, headers: r.headers });
    const click = (extra: Partial<Parameters<typeof feishuCardAction>[0]> = {}) =>
      feishuCardAction({
        verificationToken: FEISHU.verificationToken,
        value: { confirmation_id: CONF, decision: 'approve' },
        openId: 'ou_alice',
        ...extra,
      });

    it('answers url_verification, plain and encrypted, only with the right token', async () => {
      const plain = await post(
        ids.feishu,
        feishuRequest({ type: 'url_verification', challenge: 'abc', token: FEISHU.verificationToken }, {}),
      );
      expect(plain).toMatchObject({ status: 200, body: { challenge: 'abc' } });
      const enc = await post(
        ids.feishuEnc,
        feishuRequest(
          { type: 'url_verification', challenge: 'xyz', token: FEISHU.verificationToken },
          { encryptKey: FEISHU.encryptKey, encrypt: true, sign: 'none' },
        ),
      );
      expect(enc).toMatchObject({ status: 200, body: { challenge: 'xyz' } });
      const wrong = await post(
        ids.feishu,
        feishuRequest({ type: 'url_verification', challenge: 'abc', token: 'guess' }, {}),
      );
      expect(wrong.status).toBe(401);
      expect(wrong.text).not.toContain('abc');
    });

    it('a signed, encrypted click reaches the decision service and gets the decided card back', async () => {
      const res = await post(ids.feishuEnc, feishuRequest(click(), { encryptKey: FEISHU.encryptKey, encrypt: true }));
      expect(res.status).toBe(200);
      expect(sink.calls).toEqual([
        {
          channel: expect.objectContaining({ id: ids.feishuEnc, type: 'feishu' }),
          confirmationId: CONF,
          decision: 'approve',
          actor: { platform: 'feishu', externalId: 'ou_alice' },
        },
      ]);
      expect(res.body.toast).toEqual({ type: 'success', content: 'Approved by ou_alice' });
      expect(res.body.card.type).toBe('raw');
      expect(JSON.stringify(res.body.card.data)).not.toContain('"button"');
    });

    it('a refused click gets an error toast and no card', async () => {
      sink.answer = () => ({ ok: false, message: 'you are not allowed to approve this request' });
      const res = await post(
        ids.feishu,
        feishuRequest(click({ value: { confirmation_id: CONF, decision: 'reject' } }), {}),
      );
      expect(res.body).toEqual({ toast: { type: 'error', content: 'you are not allowed to approve this request' } });
      expect(sink.calls[0].decision).toBe('reject');
    });

    it('a replayed event is handled once', async () => {
      const event = feishuRequest(click({ eventId: 'ev-replay-1' }), {});
      expect((await post(ids.feishu, event)).body.toast.type).toBe('success');
      const again = await post(ids.feishu, event);
      expect(again.body.toast).toEqual({ type: 'error', content: 'This click was already handled.' });
      expect(sink.calls).toHaveLength(1);
    });

    it.each([
      [
        'a bad signature',
        () => feishuRequest(click(), { encryptKey: FEISHU.encryptKey, encrypt: true, badSignature: true }),
        'feishuEnc',
        401,
      ],
      [
        'a stale timestamp',
        () =>
          feishuRequest(click(), {
            encryptKey: FEISHU.encryptKey,
            encrypt: true,
            timestampS: Math.floor(Date.now() / 1000) - 600,
          }),
        'feishuEnc',
        401,
      ],
      [
        'an unsigned click on a channel with an encrypt key',
        () => feishuRequest(click(), { sign: 'none' }),
        'feishuEnc',
        401,
      ],
      ['a wrong verification token', () => feishuRequest(click({ verificationToken: 'guess' }), {}), 'feishu', 401],
      ['a stale create_time', () => feishuRequest(click({ createTimeMs: Date.now() - 3_600_000 }), {}), 'feishu', 401],
      [
        'a malformed body',
        () => ({ body: '{"schema":', headers: { 'content-type': 'application/json' } }),
        'feishu',
        400,
      ],
    ])('%s is refused and nothing is decided', async (_, build, which, status) => {
      const res = await post(ids[which], build());
      expect(res.status).toBe(status);
      expect(sink.calls).toEqual([]);
    });

    it('fails closed without a decision service or when it throws; unknown channel is 404', async () => {
      const svc = t.app.get(ChannelsService);
      svc.setDecisionSink(undefined as never);
      try {
        const res = await post(ids.feishu, feishuRequest(click(), {}));
        expect(res.body.toast.type).toBe('error');
        expect(res.body.card).toBeUndefined();
      } finally {
        svc.setDecisionSink(sink);
      }
      sink.answer = () => {
        throw new Error('database down');
      };
      const event = feishuRequest(click({ eventId: 'ev-throw-1' }), {});
      const failed = await post(ids.feishu, event);
      expect(failed.body).toEqual({
        toast: { type: 'error', content: 'The decision could not be recorded; nothing was decided.' },
      });
      // The failed delivery did not burn the event id: the platform's retry is handled.
      sink.answer = new RecordingSink().answer;
      expect((await post(ids.feishu, event)).body.toast.type).toBe('success');
      expect((await post('3b0c8a1e-0000-4000-8000-000000000000', feishuRequest(click(), {}))).status).toBe(404);
      expect((await post(ids.inbox, feishuRequest(click(), {}))).status).toBe(404);
    });
  });

  describe('Slack callbacks', () => {
    const post = (r: { body: string; headers: Record<string, string> }) =>
      t.request('POST', `/api/channels/${ids.slack}/callback`, { body: r.body, headers: r.headers });
    const value = (decision = 'approve') => JSON.stringify({ confirmation_id: CONF, decision });

    it('a signed click reaches the decision service; the message is replaced through response_url', async () => {
      const responseUrl = slack.responseUrl();
      const res = await post(
        slackInteraction({ signingSecret: SLACK.signingSecret, value: value(), userId: 'U-ALICE', responseUrl }),
      );
      expect(res.status).toBe(200);
      expect(sink.calls).toEqual([
        expect.objectContaining({
          confirmationId: CONF,
          decision: 'approve',
          actor: { platform: 'slack', externalId: 'U-ALICE' },
        }),
      ]);
      await until('the platform call', () => slack.responses.find((r) => responseUrl.endsWith(r.path)));
      const reply = slack.responses.find((r) => responseUrl.endsWith(r.path))!.body;
      expect(reply).toMatchObject({ replace_original: true, text: expect.stringContaining('Approved by U-ALICE') });
      expect(JSON.stringify(reply.blocks)).not.toContain('"actions"');
    });

    it('a refused click gets an ephemeral error, the message stays', async () => {
      sink.answer = () => ({ ok: false, message: 'already approved' });
      const responseUrl = slack.responseUrl();
      await post(
        slackInteraction({ signingSecret: SLACK.signingSecret, value: value('reject'), userId: 'U-BOB', responseUrl }),
      );
      await until('the platform call', () => slack.responses.find((r) => responseUrl.endsWith(r.path)));
      expect(slack.responses.find((r) => responseUrl.endsWith(r.path))!.body).toEqual({
        response_type: 'ephemeral',
        replace_original: false,
        text: 'already approved',
      });
    });

    it.each([
      [
        'a bad signature',
        () =>
          slackInteraction({ signingSecret: SLACK.signingSecret, value: value(), userId: 'U1', badSignature: true }),
      ],
      [
        'a stale timestamp',
        () =>
          slackInteraction({
            signingSecret: SLACK.signingSecret,
            value: value(),
            userId: 'U1',
            timestampS: Math.floor(Date.now() / 1000) - 600,
          }),
      ],
    ])('%s is refused with 401 and nothing is decided', async (_, build) => {
      expect((await post(build())).status).toBe(401);
      expect(sink.calls).toEqual([]);
    });

    it('a replayed interaction (same trigger) is decided once', async () => {
      const signed = slackInteraction({
        signingSecret: SLACK.signingSecret,
        value: value(),
        userId: 'U1',
        triggerId: 'trig-replay',
      });
      await post(signed);
      await post(signed);
      expect(sink.calls).toHaveLength(1);
    });
  });

  describe('WeCom callbacks', () => {
    const keys = { token: WECOM.token, encodingAesKey: WECOM.encodingAesKey, corpId: WECOM.corpId };

    it('answers the echostr verification with the decrypted plaintext, only when signed for this corp', async () => {
      const ok = await t.request(
        'GET',
        `/api/channels/${ids.wecom}/callback?${wecomEchoQuery(keys, '1616140317555161061')}`,
      );
      expect(ok.status).toBe(200);
      expect(ok.text).toBe('1616140317555161061');
      expect(
        (
          await t.request(
            'GET',
            `/api/channels/${ids.wecom}/callback?${wecomEchoQuery(keys, 'x', { badSignature: true })}`,
          )
        ).status,
      ).toBe(401);
      expect(
        (
          await t.request(
            'GET',
            `/api/channels/${ids.wecom}/callback?${wecomEchoQuery(keys, 'x', { receiveId: 'ww-other' })}`,
          )
        ).status,
      ).toBe(401);
      expect(
        (
          await t.request(
            'GET',
            `/api/channels/${ids.wecom}/callback?${wecomEchoQuery(keys, 'x', { timestampS: 1409659589 })}`,
          )
        ).status,
      ).toBe(401);
    });

    it("a button click decides by FromUserName and updates the card with the click's response code", async () => {
      const ev = wecomCardEvent(keys, {
        fromUser: 'zhangsan',
        eventKey: `reject:${CONF}`,
        taskId: CONF,
        responseCode: 'rc-click-1',
      });
      const res = await t.request('POST', `/api/channels/${ids.wecom}/callback?${ev.query}`, {
        body: ev.body,
        headers: { 'content-type': 'text/xml' },
      });
      expect(res.status).toBe(200);
      expect(sink.calls).toEqual([
        expect.objectContaining({
          confirmationId: CONF,
          decision: 'reject',
          actor: { platform: 'wecom', externalId: 'zhangsan' },
        }),
      ]);
      await until('the platform call', () => wecom.updates.find((u) => u.response_code === 'rc-click-1'));
      expect(wecom.updates.find((u) => u.response_code === 'rc-click-1').button.replace_name).toBe(
        'Rejected by zhangsan',
      );
    });

    it('a refused click leaves the card and tells the clicker why', async () => {
      sink.answer = () => ({ ok: false, message: 'you are not allowed to approve this request' });
      const ev = wecomCardEvent(keys, {
        fromUser: 'wangwu',
        eventKey: `approve:${CONF}`,
        taskId: CONF,
        responseCode: 'rc-click-2',
      });
      await t.request('POST', `/api/channels/${ids.wecom}/callback?${ev.query}`, {
        body: ev.body,
        headers: { 'content-type': 'text/xml' },
      });
      await until('the platform call', () => wecom.sent.find((m) => m.touser === 'wangwu'));
      expect(wecom.sent.find((m) => m.touser === 'wangwu')).toMatchObject({
        msgtype: 'text',
        text: { content: 'you are not allowed to approve this request' },
      });
      expect(wecom.updates.find((u) => u.response_code === 'rc-click-2')).toBeUndefined();
    });

    it.each([
      [
        'a bad signature',
        () =>
          wecomCardEvent(keys, { fromUser: 'z', eventKey: `approve:${CONF}`, taskId: CONF }, { badSignature: true }),
        401,
      ],
      [
        'a stale timestamp',
        () =>
          wecomCardEvent(
            keys,
            { fromUser: 'z', eventKey: `approve:${CONF}`, taskId: CONF },
            { timestampS: Math.floor(Date.now() / 1000) - 600 },
          ),
        401,
      ],
      [
        "another corp's payload",
        () =>
          wecomCardEvent(keys, { fromUser: 'z', eventKey: `approve:${CONF}`, taskId: CONF }, { receiveId: 'ww-other' }),
        401,
      ],
      ['a body without <Encrypt>', () => ({ query: 'msg_signature=a&timestamp=1&nonce=2', body: '<xml></xml>' }), 400],
    ])('%s is refused and nothing is decided', async (_, build, status) => {
      const ev = build();
      const res = await t.request('POST', `/api/channels/${ids.wecom}/callback?${ev.query}`, {
        body: ev.body,
        headers: { 'content-type': 'text/xml' },
      });
      expect(res.status).toBe(status);
      expect(sink.calls).toEqual([]);
    });
  });

  it("GET /api/notifications lists only the caller org's inbox, newest first", async () => {
    const svc = t.app.get(ChannelsService);
    const orgId = (await t.request('GET', '/api/me', { token: admin })).body.org_id;
    const { record, impl } = await svc.resolveForDelivery(orgId, 'inbox');
    await impl.sendNotification(record, 'first **markdown**', { agentId: null, runId: null });
    await impl.sendNotification(record, 'second');
    const mine = await t.request('GET', '/api/notifications?limit=2', { token: admin });
    expect(mine.body.map((n: { text: string }) => n.text)).toEqual(['second', 'first **markdown**']);
    expect(mine.body[0]).toMatchObject({ channel_id: null });
    const other = await t.token('eve', 'evilcorp', ['admin']);
    expect((await t.request('GET', '/api/notifications', { token: other })).body).toEqual([]);
  });
});

function card() {
  return {
    confirmationId: CONF,
    agentName: 'buyer',
    tool: 'oa__purchase_pay',
    args: { amount: 60000 },
    requestedBy: { userId: 'u1', name: 'Alice' },
    expiresAt: new Date(Date.now() + 120_000),
    approverScope: 'org_admins',
  };
}
