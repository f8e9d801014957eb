import { randomUUID } from 'node:crypto';
import { feishuCardAction, feishuRequest, startFakeFeishu, type FakeFeishu } from '../fakes/fake-feishu.js';
import { startFakeOpenAI, type ChatRequestBody, type FakeOpenAI, type FakeReply } from '../fakes/fake-openai.js';
import { slackInteraction, slackSignature, startFakeSlack, type FakeSlack } from '../fakes/fake-slack.js';
import { startFakeWecom, wecomCardEvent, type FakeWecom } from '../fakes/fake-wecom.js';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { until } from '../support/eventually.js';
import { OA_ACTIONS, openChat, type SseEvent } from './runtime-helpers.js';

/**
 * The approval gate end to end, through chat: a model proposes `oa__purchase_pay`, the gate posts a card to a fake
 * chat platform speaking the real protocol, a signed (or encrypted) click comes back through the public callback,
 * and the connector is called — or not. One table, parametrised by platform.
 */

const FEISHU = {
  appId: 'cli_flow',
  appSecret: 'feishu-flow-SECRET',
  verificationToken: 'feishu-flow-VT',
  encryptKey: 'feishu-flow-ENCKEY',
};
const SLACK = { botToken: 'xoxb-flow-TOKEN', signingSecret: 'slack-flow-SIGNING' };
const WECOM = {
  corpId: 'ww-flow',
  corpSecret: 'wecom-flow-SECRET',
  token: 'wecomFlowTOKEN',
  encodingAesKey: 'jWmYm7qr5nMoAUwZRjGtBxmz3KA1tkAj3ykkR6q2B2C',
};
const WECOM_KEYS = { token: WECOM.token, encodingAesKey: WECOM.encodingAesKey, corpId: WECOM.corpId };

interface Person {
  sub: string;
  token: string;
  userId: string;
}

/** What a click looked like to the clicker: success (card replaced) or an error shown to them. */
interface ClickAnswer {
  status: number;
  ok: boolean;
  message: string;
}

/** How one platform is driven by the shared table: its channel, its cards, its clicks, its forgeries. */
interface PlatformAdapter {
  type: 'feishu' | 'slack' | 'wecom';
  /** Channel config (secrets included) pointing at the fake. */
  config(extra?: Record<string, unknown>): Record<string, unknown>;
  /** The approval-list key of this platform's channel config. */
  approverListKey: string;
  /** Platform ids of the test users. */
  ids: { bob: string; carol: string; stranger: string };
  /** Approval cards the fake received (for one confirmation, or all), with where they went. */
  cardsFor(confirmationId?: string): Array<{ target: string }>;
  /** Where the configured card must land. */
  configuredTarget: string;
  /** A genuine, correctly signed click, answered the way the platform shows it to the clicker. */
  click(
    channelId: string,
    confirmationId: string,
    decision: 'approve' | 'reject',
    clicker: string,
  ): Promise<ClickAnswer>;
  /** The exact same signed request twice (a platform retry or a replay). */
  replay(channelId: string, confirmationId: string, clicker: string): Promise<[ClickAnswer, ClickAnswer]>;
  /** Requests that must be refused without deciding anything. */
  forgeries(
    channelId: string,
    confirmationId: string,
    clicker: string,
  ): Array<[string, () => Promise<{ status: number; refusedMessage?: string }>]>;
  failDelivery(on: boolean): void;
}

describe('approval flow through chat (gate + channels + runtime, PostgreSQL)', () => {
  let t: TestApp;
  let llm: FakeOpenAI;
  let oa: HttpFake;
  let feishu: FakeFeishu;
  let slack: FakeSlack;
  let wecom: FakeWecom;
  let alice: Person; // member, starts the runs
  let bob: Person; // member, linked on every platform
  let carol: Person; // admin, linked on every platform, owns the agents

  const callback = (channelId: string, query = '') => `/api/channels/${channelId}/callback${query ? `?${query}` : ''}`;

  const feishuAdapter = (encrypted: boolean): PlatformAdapter => {
    const sign = (payload: Record<string, unknown>, extra: Parameters<typeof feishuRequest>[1] = {}) =>
      feishuRequest(payload, encrypted ? { encryptKey: FEISHU.encryptKey, encrypt: true, ...extra } : extra);
    const post = async (
      channelId: string,
      r: { body: string; headers: Record<string, string> },
    ): Promise<ClickAnswer> => {
      const res = await t.request('POST', callback(channelId), { body: r.body, headers: r.headers });
      return {
        status: res.status,
        ok: res.body?.toast?.type === 'success',
        message: res.body?.toast?.content ?? res.text,
      };
    };
    const action = (
      confirmationId: string,
      decision: string,
      openId: string,
      extra: Partial<Parameters<typeof feishuCardAction>[0]> = {},
    ) =>
      feishuCardAction({
        verificationToken: FEISHU.verificationToken,
        value: { confirmation_id: confirmationId, decision },
        openId,
        ...extra,
      });
    return {
      type: 'feishu',
      approverListKey: 'approver_open_ids',
      ids: { bob: 'ou_bob', carol: 'ou_carol', stranger: 'ou_stranger' },
      config: (extra = {}) => ({
        app_id: FEISHU.appId,
        app_secret: FEISHU.appSecret,
        chat_id: 'oc_approvals',
        verification_token: FEISHU.verificationToken,
        ...(encrypted ? { encrypt_key: FEISHU.encryptKey } : {}),
        base_url: feishu.url,
        ...extra,
      }),
      configuredTarget: 'oc_approvals',
      cardsFor: (id) =>
        feishu.sent
          .filter((m) => m.msgType === 'interactive' && (id === undefined || m.uuid === id))
          .map((m) => ({ target: m.chatId })),
      click: (channelId, id, decision, clicker) => post(channelId, sign(action(id, decision, clicker))),
      async replay(channelId, id, clicker) {
        const request = sign(action(id, 'approve', clicker));
        return [await post(channelId, request), await post(channelId, request)];
      },
      forgeries(channelId, id, clicker) {
        const raw = async (r: { body: string; headers: Record<string, string> }) => {
          const res = await t.request('POST', callback(channelId), { body: r.body, headers: r.headers });
          return {
            status: res.status,
            refusedMessage: res.body?.toast?.type === 'error' ? res.body.toast.content : undefined,
          };
        };
        const common: Array<[string, () => Promise<{ status: number; refusedMessage?: string }>]> = [
          ['an unknown confirmation id', () => raw(sign(action(randomUUID(), 'approve', clicker)))],
          ['a malformed body', () => raw({ body: '{"schema":', headers: { 'content-type': 'application/json' } })],
          [
            'a stale create_time',
            () => raw(sign(action(id, 'approve', clicker, { createTimeMs: Date.now() - 3_600_000 }))),
          ],
          [
            'a wrong verification token',
            () => raw(sign(action(id, 'approve', clicker, { verificationToken: 'guessed' }))),
          ],
        ];
        if (!encrypted) return common;
        return [
          ...common,
          ['a bad signature', () => raw(sign(action(id, 'approve', clicker), { badSignature: true }))],
          [
            'a stale signature timestamp',
            () => raw(sign(action(id, 'approve', clicker), { timestampS: Math.floor(Date.now() / 1000) - 600 })),
          ],
          ['an unsigned body', () => raw(feishuRequest(action(id, 'approve', clicker), { sign: 'none' }))],
        ];
      },
      failDelivery: (on) => feishu.failSends(on ? { code: 230002, msg: 'Bot/User can NOT be out of the chat.' } : null),
    };
  };

  const slackAdapter = (): PlatformAdapter => {
    /** Posts a signed interaction and waits for what Warden answers on its response_url. */
    const post = async (
      channelId: string,
      r: { body: string; headers: Record<string, string> },
      responseUrl: string,
      alreadyAnswered = 0,
    ): Promise<ClickAnswer> => {
      const res = await t.request('POST', callback(channelId), { body: r.body, headers: r.headers });
      if (res.status !== 200) return { status: res.status, ok: false, message: res.text };
      const answers = () => slack.responses.filter((x) => responseUrl.endsWith(x.path));
      const reply = await until('slack response_url answer', () => answers()[alreadyAnswered]);
      return { status: res.status, ok: reply.body.replace_original === true, message: reply.body.text };
    };
    const interaction = (
      id: string,
      decision: string,
      userId: string,
      responseUrl: string,
      extra: Partial<Parameters<typeof slackInteraction>[0]> = {},
    ) =>
      slackInteraction({
        signingSecret: SLACK.signingSecret,
        value: JSON.stringify({ confirmation_id: id, decision }),
        userId,
        responseUrl,
        ...extra,
      });
    return {
      type: 'slack',
      approverListKey: 'approver_user_ids',
      ids: { bob: 'U_BOB', carol: 'U_CAROL', stranger: 'U_STRANGER' },
      config: (extra = {}) => ({
        bot_token: SLACK.botToken,
        signing_secret: SLACK.signingSecret,
        channel: 'C-APPROVALS',
        base_url: slack.apiUrl,
        ...extra,
      }),
      configuredTarget: 'C-APPROVALS',
      cardsFor: (id) =>
        slack.posted
          .filter(
            (m) =>
              (m.blocks ?? []).some((b: any) => b.type === 'actions') &&
              (id === undefined || JSON.stringify(m.blocks).includes(id)),
          )
          .map((m) => ({ target: m.channel })),
      click(channelId, id, decision, clicker) {
        const responseUrl = slack.responseUrl();
        return post(channelId, interaction(id, decision, clicker, responseUrl), responseUrl);
      },
      async replay(channelId, id, clicker) {
        const responseUrl = slack.responseUrl();
        const request = interaction(id, 'approve', clicker, responseUrl, { triggerId: `trig-${randomUUID()}` });
        return [await post(channelId, request, responseUrl), await post(channelId, request, responseUrl, 1)];
      },
      forgeries(channelId, id, clicker) {
        const raw = async (r: { body: string; headers: Record<string, string> }, responseUrl?: string) => {
          const res = await t.request('POST', callback(channelId), { body: r.body, headers: r.headers });
          const reply =
            responseUrl && res.status === 200
              ? await until('slack answer', () => slack.responses.find((x) => responseUrl.endsWith(x.path)))
              : undefined;
          return {
            status: res.status,
            refusedMessage: reply?.body.response_type === 'ephemeral' ? reply.body.text : undefined,
          };
        };
        const signedForm = (body: string) => {
          const ts = Math.floor(Date.now() / 1000);
          return {
            body,
            headers: {
              'content-type': 'application/x-www-form-urlencoded',
              'x-slack-request-timestamp': String(ts),
              'x-slack-signature': slackSignature(SLACK.signingSecret, ts, body),
            },
          };
        };
        return [
          [
            'an unknown confirmation id',
            () => {
              const u = slack.responseUrl();
              return raw(interaction(randomUUID(), 'approve', clicker, u), u);
            },
          ],
          ['a malformed body (signed, no payload=)', () => raw(signedForm('foo=bar'))],
          ['a malformed payload (signed, not JSON)', () => raw(signedForm('payload=%7Bnot-json'))],
          [
            'a bad signature',
            () => raw(interaction(id, 'approve', clicker, slack.responseUrl(), { badSignature: true })),
          ],
          [
            'a stale timestamp',
            () =>
              raw(
                interaction(id, 'approve', clicker, slack.responseUrl(), {
                  timestampS: Math.floor(Date.now() / 1000) - 600,
                }),
              ),
          ],
        ];
      },
      failDelivery: (on) => slack.failPosts(on ? 'channel_not_found' : null),
    };
  };

  const wecomAdapter = (): PlatformAdapter => {
    /** Text answers already attributed to a click (WeCom tells a refused clicker by a message, not in the HTTP reply). */
    const claimed = new Set<unknown>();
    /** Each clicker's clicks still waiting for their answer, by response code. */
    const awaiting = new Map<string, Set<string>>();
    const updateFor = (code: string) => wecom.updates.find((u) => u.response_code === code);
    let clicks = 0;
    const post = async (
      channelId: string,
      ev: { query: string; body: string },
      clicker: string,
      responseCode: string,
    ): Promise<ClickAnswer> => {
      const mine = awaiting.get(clicker) ?? new Set<string>();
      awaiting.set(clicker, mine.add(responseCode));
      const res = await t.request('POST', callback(channelId, ev.query), {
        body: ev.body,
        headers: { 'content-type': 'text/xml' },
      });
      if (res.status !== 200) {
        mine.delete(responseCode);
        return { status: res.status, ok: false, message: res.text };
      }
      const answer = await until('wecom click answer', () => {
        const update = updateFor(responseCode);
        if (update) return { status: res.status, ok: true, message: update.button.replace_name as string };
        // A text answers one of this clicker's clicks, but not which: taken only once every click of theirs that is
        // still unanswered can have one — so a click whose card update is still on its way never takes another's text.
        const texts = wecom.sent.filter((m) => m.msgtype === 'text' && m.touser === clicker && !claimed.has(m));
        const unanswered = [...mine].filter((code) => !updateFor(code));
        if (texts.length === 0 || texts.length < unanswered.length) return undefined;
        claimed.add(texts[0]);
        return { status: res.status, ok: false, message: texts[0].text.content as string };
      });
      mine.delete(responseCode);
      return answer;
    };
    const event = (
      id: string,
      decision: string,
      clicker: string,
      responseCode: string,
      opts: Parameters<typeof wecomCardEvent>[2] = {},
      createTime?: number,
    ) =>
      wecomCardEvent(
        WECOM_KEYS,
        { fromUser: clicker, eventKey: `${decision}:${id}`, taskId: id, responseCode, createTime },
        opts,
      );
    return {
      type: 'wecom',
      approverListKey: 'approver_user_ids',
      ids: { bob: 'bob.wx', carol: 'carol.wx', stranger: 'stranger.wx' },
      config: (extra = {}) => ({
        corp_id: WECOM.corpId,
        corp_secret: WECOM.corpSecret,
        agent_id: 1000002,
        token: WECOM.token,
        encoding_aes_key: WECOM.encodingAesKey,
        to_user: 'bob.wx|carol.wx',
        base_url: wecom.url,
        ...extra,
      }),
      configuredTarget: 'bob.wx|carol.wx',
      cardsFor: (id) =>
        wecom.sent
          .filter((m) => m.msgtype === 'template_card' && (id === undefined || m.template_card?.task_id === id))
          .map((m) => ({ target: m.touser })),
      click(channelId, id, decision, clicker) {
        const code = `rc-${randomUUID()}`;
        // WeCom identifies a click by user + CreateTime + key: two real clicks by one person differ in CreateTime.
        return post(
          channelId,
          event(id, decision, clicker, code, {}, Math.floor(Date.now() / 1000) + clicks++),
          clicker,
          code,
        );
      },
      async replay(channelId, id, clicker) {
        const code = `rc-${randomUUID()}`;
        const ev = event(id, 'approve', clicker, code);
        return [
          await post(channelId, ev, clicker, code),
          await post(channelId, ev, clicker, `rc-none-${randomUUID()}`),
        ];
      },
      forgeries(channelId, id, clicker) {
        const raw = async (ev: { query: string; body: string }, answered?: { code: string }) => {
          const res = await t.request('POST', callback(channelId, ev.query), {
            body: ev.body,
            headers: { 'content-type': 'text/xml' },
          });
          if (!answered || res.status !== 200) return { status: res.status };
          const text = await until('wecom refusal message', () =>
            wecom.sent.find((m) => m.msgtype === 'text' && m.touser === clicker && !claimed.has(m)),
          );
          claimed.add(text);
          return { status: res.status, refusedMessage: text.text.content as string };
        };
        return [
          [
            'an unknown confirmation id',
            () => {
              const u = randomUUID();
              return raw(event(u, 'approve', clicker, 'rc-x'), { code: 'rc-x' });
            },
          ],
          [
            'a body without <Encrypt>',
            () => raw({ query: 'msg_signature=a&timestamp=1&nonce=2', body: '<xml><ToUserName>x</ToUserName></xml>' }),
          ],
          ['a bad signature', () => raw(event(id, 'approve', clicker, 'rc-y', { badSignature: true }))],
          [
            'a stale timestamp',
            () => raw(event(id, 'approve', clicker, 'rc-y', { timestampS: Math.floor(Date.now() / 1000) - 600 })),
          ],
          ["another corp's payload", () => raw(event(id, 'approve', clicker, 'rc-y', { receiveId: 'ww-other' }))],
        ];
      },
      failDelivery: (on) => wecom.failSends(on ? { errcode: 81013, errmsg: 'user & party & tag all invalid' } : null),
    };
  };

  // ---- the model: pays what the user asks, then reports what the tool said ----
  /** "pay PO-x 60000" -> purchase_pay; after the tool message -> an answer quoting the observation. */
  function payingModel(body: ChatRequestBody): FakeReply {
    const tool = [...body.messages].reverse().find((m) => m.role === 'tool');
    if (tool) return { content: `result: ${tool.content}` };
    const user = [...body.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    const m = /pay (\S+) (\d+)/.exec(user);
    if (!m) return { content: 'nothing to pay' };
    return { tool_calls: [{ name: 'oa__purchase_pay', args: { id: m[1], amount: Number(m[2]) } }] };
  }

  async function person(sub: string, roles: string[] = []): Promise<Person> {
    const token = await t.token(sub, 'acme', roles, { name: sub[0].toUpperCase() + sub.slice(1) });
    const me = await t.request('GET', '/api/me', { token });
    expect(me.status).toBe(200);
    return { sub, token, userId: me.body.user_id };
  }

  async function createChannel(type: string, config: Record<string, unknown> = {}): Promise<string> {
    const res = await t.request('POST', '/api/channels', {
      token: carol.token,
      body: { type, name: `${type}-${randomUUID().slice(0, 8)}`, config },
    });
    expect(res.status).toBe(201);
    return res.body.id;
  }

  async function createAgent(confirmation: Record<string, unknown>): Promise<string> {
    const res = await t.request('POST', '/api/agents', {
      token: carol.token,
      body: {
        name: `buyer-${randomUUID().slice(0, 6)}`,
        instructions: 'You pay purchase orders.',
        model_config_json: {
          model: {
            provider: 'openai',
            base_url: llm.baseUrl,
            model: 'fake-1',
            api_key_env: 'WARDEN_LLM_KEY_FAKE',
            stream: false,
          },
          tools: ['oa__*'],
          confirmation: { timeout_s: 30, approver_scope: 'org_members', forbid_self_approval: false, ...confirmation },
        },
      },
    });
    expect(res.status).toBe(201);
    return res.body.id;
  }

  const paymentsOf = (po: string) => oa.requests.filter((r) => r.path === `/purchases/${po}/pay`);
  const row = async (id: string) => {
    const res = await t.request('GET', `/api/confirmations/${id}`, { token: carol.token });
    expect(res.status).toBe(200);
    return res.body;
  };
  const newPo = () => `PO-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    [llm, oa, feishu, slack, wecom] = await Promise.all([
      startFakeOpenAI(payingModel),
      startHttpFake((req) => ({ paid: true, path: req.path, amount: req.body?.amount })),
      startFakeFeishu(FEISHU),
      startFakeSlack(SLACK.botToken),
      startFakeWecom(WECOM),
    ]);
    t = await startTestApp({
      WARDEN_LLM_KEY_FAKE: 'sk-fake',
      LLM_KEY_ORIGINS: `WARDEN_LLM_KEY_FAKE=${new URL(llm.baseUrl).origin}`,
      LLM_TIMEOUT_MS: '5000',
    });
    carol = await person('carol', ['admin']);
    alice = await person('alice');
    bob = await person('bob');
    const connector = await t.request('POST', '/api/connectors', {
      token: carol.token,
      body: { name: 'oa', base_url: oa.url, actions: OA_ACTIONS },
    });
    expect(connector.status).toBe(201);
    // Bob and Carol link their chat accounts; Alice (the requester) and "stranger" do not.
    for (const [who, ids] of [
      ['bob', { feishu_open_id: 'ou_bob', slack_user_id: 'U_BOB', wecom_user_id: 'bob.wx' }],
      ['carol', { feishu_open_id: 'ou_carol', slack_user_id: 'U_CAROL', wecom_user_id: 'carol.wx' }],
    ] as const) {
      const res = await t.request('PUT', `/api/users/${who}/identities`, { token: carol.token, body: ids });
      expect(res.status).toBe(200);
    }
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await Promise.all([llm?.close(), oa?.close(), feishu?.close(), slack?.close(), wecom?.close()]);
  });

  const adapters = () => [feishuAdapter(false), feishuAdapter(true), slackAdapter(), wecomAdapter()];
  const table = ['feishu (verification token)', 'feishu (encrypted + signed)', 'slack', 'wecom'].map(
    (label, i) => [label, i] as const,
  );

  describe.each(table)('%s', (_label, index) => {
    let p: PlatformAdapter;
    let channelId: string;
    let agentId: string;

    beforeAll(async () => {
      p = adapters()[index];
      channelId = await createChannel(p.type, p.config());
      agentId = await createAgent({ channel_id: channelId });
    });

    /** Starts a payment chat and waits until the card is on the platform. */
    async function pendingPayment(agent = agentId, po = newPo(), amount = 60_000) {
      const run = openChat(t, alice.token, { agent_id: agent, message: `pay ${po} ${amount}` });
      const pending = await run.next('confirmation_pending');
      const id = pending.data.confirmation_id as string;
      await until('the card on the platform', () => p.cardsFor(id).length > 0);
      return { run, pending, id, po };
    }

    async function expectStillPending(id: string, po: string) {
      expect(await row(id)).toMatchObject({ status: 'pending', responded_by: null, responded_at: null });
      expect(paymentsOf(po)).toHaveLength(0);
    }

    it('¥60,000: the stream pauses, one card lands in the configured place, a signed approve pays exactly once and the row says who and when', async () => {
      const { run, pending, id, po } = await pendingPayment();
      expect(pending.data).toMatchObject({
        tool: 'oa__purchase_pay',
        args: { id: po, amount: 60000 },
        channel: { id: channelId, type: p.type },
      });
      // Paused: nothing executed while waiting (the stream's order below proves the call ran only after the click).
      expect(run.events.map((e) => e.event)).not.toContain('observation');
      expect(paymentsOf(po)).toHaveLength(0);
      expect(p.cardsFor(id)).toEqual([{ target: p.configuredTarget }]);

      const clickedAt = Date.now();
      const answer = await p.click(channelId, id, 'approve', p.ids.bob);
      expect(answer).toMatchObject({ status: 200, ok: true, message: expect.stringMatching(/Approved by Bob/) });
      const events = await run.finished;
      expect(events.find((e) => e.event === 'confirmation_resolved')!.data).toMatchObject({
        call_id: pending.data.call_id,
        confirmation_id: id,
        status: 'approved',
        responded_by: 'Bob',
      });
      const types = events.map((e) => e.event);
      expect(types.indexOf('confirmation_pending')).toBeLessThan(types.indexOf('confirmation_resolved'));
      expect(types.indexOf('confirmation_resolved')).toBeLessThan(types.indexOf('observation'));
      expect(events.find((e) => e.event === 'observation')!.data).toMatchObject({
        blocked: false,
        tool: 'oa__purchase_pay',
      });
      expect(events.at(-1)!.data.status).toBe('completed');
      expect(paymentsOf(po)).toHaveLength(1);
      expect(paymentsOf(po)[0].body).toEqual({ amount: 60000 });

      const decided = await row(id);
      expect(decided).toMatchObject({
        status: 'approved',
        responded_by: 'Bob',
        responded_by_user_id: bob.userId,
        responded_by_open_id: p.ids.bob,
        responded_by_platform: p.type,
        channel_id: channelId,
      });
      expect(new Date(decided.responded_at).getTime()).toBeGreaterThanOrEqual(clickedAt - 1000);
      expect(new Date(decided.responded_at).getTime()).toBeLessThanOrEqual(Date.now());
      expect(p.cardsFor(id)).toHaveLength(1);
    });

    it('¥100: no card, the payment runs at once', async () => {
      const po = newPo();
      const before = p.cardsFor().length;
      const run = openChat(t, alice.token, { agent_id: agentId, message: `pay ${po} 100` });
      const events = await run.finished;
      expect(events.map((e) => e.event)).not.toContain('confirmation_pending');
      expect(events.at(-1)!.data.status).toBe('completed');
      expect(paymentsOf(po)).toHaveLength(1);
      expect(p.cardsFor().length).toBe(before);
    });

    it('reject: the model is told "Tool call blocked by confirmation_gate: rejected by Carol" and the connector gets nothing', async () => {
      const { run, id, po } = await pendingPayment();
      const answer = await p.click(channelId, id, 'reject', p.ids.carol);
      expect(answer).toMatchObject({ ok: true, message: expect.stringMatching(/Rejected by Carol/) });
      const events = await run.finished;
      expect(events.find((e) => e.event === 'confirmation_resolved')!.data).toMatchObject({
        status: 'rejected',
        responded_by: 'Carol',
      });
      const observation = events.find((e) => e.event === 'observation')!.data;
      expect(observation).toMatchObject({ blocked: true, blocked_by: 'confirmation_gate' });
      const prompt = llm.requests.find(
        (r) =>
          r.messages.some((m) => m.role === 'user' && m.content?.includes(po)) &&
          r.messages.some((m) => m.role === 'tool'),
      )!;
      expect(prompt.messages.find((m) => m.role === 'tool')!.content).toBe(
        'Tool call blocked by confirmation_gate: rejected by Carol',
      );
      expect(paymentsOf(po)).toHaveLength(0);
      expect(await row(id)).toMatchObject({ status: 'rejected', responded_by_user_id: carol.userId });
    });

    it('no click: expired after timeout_s = 2, the row says expired and a late click changes nothing', async () => {
      const quickAgent = await createAgent({ channel_id: channelId, timeout_s: 2 });
      const { run, id, po } = await pendingPayment(quickAgent);
      const events = await run.finished;
      // Expired at its deadline (2 s after the request), not before: the row's own times say so.
      const expired = await row(id);
      expect(new Date(expired.expires_at).getTime() - new Date(expired.created_at).getTime()).toBeGreaterThanOrEqual(
        1_900,
      );
      expect(new Date(expired.responded_at).getTime()).toBeGreaterThanOrEqual(new Date(expired.expires_at).getTime());
      expect(events.find((e) => e.event === 'confirmation_resolved')!.data).toMatchObject({
        confirmation_id: id,
        status: 'expired',
      });
      expect(events.find((e) => e.event === 'observation')!.data.blocked).toBe(true);
      expect(
        llm.requests.some((r) =>
          r.messages.some(
            (m) => m.role === 'tool' && m.content === 'Tool call blocked by confirmation_gate: expired after 2 s',
          ),
        ),
      ).toBe(true);
      expect(await row(id)).toMatchObject({ status: 'expired' });
      const late = await p.click(channelId, id, 'approve', p.ids.bob);
      expect(late.ok).toBe(false);
      expect(late.message).toMatch(/already expired/);
      expect((await row(id)).status).toBe('expired');
      expect(paymentsOf(po)).toHaveLength(0);
    });

    it('double click and a replayed request: exactly one decision, one payment', async () => {
      const { run, id, po } = await pendingPayment();
      const [first, replayed] = await p.replay(channelId, id, p.ids.bob);
      expect(first.ok).toBe(true);
      expect(replayed.ok).toBe(false);
      expect(replayed.message).toMatch(/already handled|already approved/);
      const second = await p.click(channelId, id, 'reject', p.ids.carol);
      expect(second).toMatchObject({ ok: false, message: expect.stringMatching(/already approved/) });
      const events = await run.finished;
      expect(events.filter((e) => e.event === 'confirmation_resolved')).toHaveLength(1);
      expect(paymentsOf(po)).toHaveLength(1);
      expect(await row(id)).toMatchObject({ status: 'approved', responded_by: 'Bob' });
    });

    it('20 concurrent clicks, approve racing reject: one decision wins, the tool runs at most once', async () => {
      const { run, id, po } = await pendingPayment();
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          p.click(channelId, id, i % 2 === 0 ? 'approve' : 'reject', i % 3 === 0 ? p.ids.carol : p.ids.bob),
        ),
      );
      expect(answers.filter((a) => a.ok)).toHaveLength(1);
      expect(answers.filter((a) => !a.ok).every((a) => /already (approved|rejected)/.test(a.message))).toBe(true);
      const events = await run.finished;
      const resolved = events.filter((e) => e.event === 'confirmation_resolved');
      expect(resolved).toHaveLength(1);
      const final = await row(id);
      expect(final.status).toBe(resolved[0].data.status);
      expect(paymentsOf(po)).toHaveLength(final.status === 'approved' ? 1 : 0);
    });

    it('forged, stale, malformed and unknown-id callbacks are refused and the row stays pending; then a good click ends the run', async () => {
      const { run, id, po } = await pendingPayment();
      for (const [what, send] of p.forgeries(channelId, id, p.ids.bob)) {
        const res = await send();
        const refused = res.status >= 400 || res.refusedMessage !== undefined;
        if (!refused) throw new Error(`${what} was not refused (HTTP ${res.status})`);
        if (what === 'an unknown confirmation id') expect(res.refusedMessage).toMatch(/not found/);
        await expectStillPending(id, po);
      }
      expect(await p.click(channelId, id, 'approve', p.ids.bob)).toMatchObject({ ok: true });
      expect((await run.finished).at(-1)!.data.status).toBe('completed');
      expect(paymentsOf(po)).toHaveLength(1);
    });

    it('outside the approver scope: an unlinked clicker, a member on an admins-only agent, someone off the channel list are refused', async () => {
      const adminsOnly = await createAgent({ channel_id: channelId, approver_scope: 'org_admins' });
      const { run, id, po } = await pendingPayment(adminsOnly);
      const unlinked = await p.click(channelId, id, 'approve', p.ids.stranger);
      expect(unlinked).toMatchObject({ ok: false, message: expect.stringMatching(/not linked to a Warden user/) });
      const member = await p.click(channelId, id, 'approve', p.ids.bob);
      expect(member).toMatchObject({ ok: false, message: expect.stringMatching(/only organisation admins/) });
      await expectStillPending(id, po);
      expect(await p.click(channelId, id, 'approve', p.ids.carol)).toMatchObject({
        ok: true,
        message: expect.stringMatching(/Approved by Carol/),
      });
      expect((await run.finished).at(-1)!.data.status).toBe('completed');
      expect(paymentsOf(po)).toHaveLength(1);

      // A channel that lists its approvers: only they may decide, even a linked admin off the list is refused.
      const listed = await createChannel(p.type, p.config({ [p.approverListKey]: [p.ids.bob] }));
      const listedAgent = await createAgent({ channel_id: listed });
      const second = await pendingPayment(listedAgent);
      const offList = await p.click(listed, second.id, 'approve', p.ids.carol);
      expect(offList).toMatchObject({
        ok: false,
        message: expect.stringMatching(/not in this channel's approver list/),
      });
      // A click on this card arriving through another channel of the org is not a click on this card.
      const wrongChannel = await p.click(channelId, second.id, 'approve', p.ids.bob);
      expect(wrongChannel).toMatchObject({ ok: false, message: expect.stringMatching(/not found/) });
      await expectStillPending(second.id, second.po);
      expect(await p.click(listed, second.id, 'approve', p.ids.bob)).toMatchObject({ ok: true });
      expect((await second.run.finished).at(-1)!.data.status).toBe('completed');
      expect(paymentsOf(second.po)).toHaveLength(1);
    });

    it('card delivery failure: the call is blocked with a clear message, and a later approve is a 409', async () => {
      const po = newPo();
      p.failDelivery(true);
      let events: SseEvent[];
      try {
        events = await openChat(t, alice.token, { agent_id: agentId, message: `pay ${po} 60000` }).finished;
      } finally {
        p.failDelivery(false);
      }
      const id = events.find((e) => e.event === 'confirmation_pending')!.data.confirmation_id;
      expect(events.find((e) => e.event === 'confirmation_resolved')!.data).toMatchObject({
        confirmation_id: id,
        status: 'expired',
      });
      const observation = events.find((e) => e.event === 'observation')!.data;
      expect(observation).toMatchObject({ blocked: true, blocked_by: 'confirmation_gate' });
      expect(observation.content).toMatch(/approval card could not be delivered/);
      expect(paymentsOf(po)).toHaveLength(0);
      expect(await row(id)).toMatchObject({
        status: 'expired',
        reason: expect.stringMatching(/^card delivery failed: /),
      });
      const late = await t.request('POST', `/api/confirmations/${id}/decision`, {
        token: carol.token,
        body: { decision: 'approve' },
      });
      expect(late.status).toBe(409);
      expect(late.body.status).toBe('expired');
      const click = await p.click(channelId, id, 'approve', p.ids.carol);
      expect(click.ok).toBe(false);
      expect(paymentsOf(po)).toHaveLength(0);
    });
  });

  describe('inbox (no channel configured)', () => {
    it('the card goes to the inbox; POST /api/confirmations/:id/decision approves and the payment runs once', async () => {
      const agentId = await createAgent({});
      const po = newPo();
      const sentBefore = feishu.sent.length + slack.posted.length + wecom.sent.length;
      const run = openChat(t, alice.token, { agent_id: agentId, message: `pay ${po} 60000` });
      const pending = await run.next('confirmation_pending');
      const id = pending.data.confirmation_id;
      expect(pending.data.channel).toMatchObject({ id: 'inbox', type: 'inbox' });
      const listed = await t.request('GET', '/api/confirmations?status=pending', { token: bob.token });
      expect(listed.body.map((r: { id: string }) => r.id)).toContain(id);
      // Why and in what context (#32): the rule that fired and the member's message, as the approver reads them.
      expect(listed.body.find((r: { id: string }) => r.id === id)).toMatchObject({
        trigger: 'args.amount > 50000',
        member_message: `pay ${po} 60000`,
      });
      expect(paymentsOf(po)).toHaveLength(0);
      const res = await t.request('POST', `/api/confirmations/${id}/decision`, {
        token: bob.token,
        body: { decision: 'approve' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'approved', responded_by: 'Bob', responded_by_user_id: bob.userId });
      const events = await run.finished;
      expect(events.find((e) => e.event === 'confirmation_resolved')!.data).toMatchObject({
        status: 'approved',
        responded_by: 'Bob',
      });
      // Nothing ran while waiting: the call's result comes after Bob's decision in the run's own order.
      const types = events.map((e) => e.event);
      expect(types.indexOf('confirmation_resolved')).toBeGreaterThan(types.indexOf('confirmation_pending'));
      expect(types.indexOf('observation')).toBeGreaterThan(types.indexOf('confirmation_resolved'));
      expect(events.at(-1)!.data.status).toBe('completed');
      expect(paymentsOf(po)).toHaveLength(1);
      expect(feishu.sent.length + slack.posted.length + wecom.sent.length).toBe(sentBefore);
      const again = await t.request('POST', `/api/confirmations/${id}/decision`, {
        token: carol.token,
        body: { decision: 'reject' },
      });
      expect(again.status).toBe(409);
    });
  });
});
