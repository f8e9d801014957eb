import { randomUUID } from 'node:crypto';
import { startFakeFeishu, type FakeFeishu } from '../fakes/fake-feishu.js';
import { startFakeOpenAI, type ChatRequestBody, type FakeOpenAI, type FakeReply } from '../fakes/fake-openai.js';
import { startFakeSlack, type FakeSlack } from '../fakes/fake-slack.js';
import { startFakeWecom, type FakeWecom } from '../fakes/fake-wecom.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { chat } from './runtime-helpers.js';

/** `channel_notify` through chat: an agent's message reaches every platform and the inbox; read-only mode stops it. */

const FEISHU = { appId: 'cli_notify', appSecret: 'feishu-notify-SECRET', verificationToken: 'feishu-notify-VT' };
const SLACK = { botToken: 'xoxb-notify-TOKEN', signingSecret: 'slack-notify-SIGNING' };
const WECOM = {
  corpId: 'ww-notify',
  corpSecret: 'wecom-notify-SECRET',
  token: 'wecomNotifyTOKEN',
  encodingAesKey: 'jWmYm7qr5nMoAUwZRjGtBxmz3KA1tkAj3ykkR6q2B2C',
};

describe('channel_notify through chat (every channel type, read-only guard)', () => {
  let t: TestApp;
  let llm: FakeOpenAI;
  let feishu: FakeFeishu;
  let slack: FakeSlack;
  let wecom: FakeWecom;
  let admin: string;
  let agentId: string;
  const channels: Record<string, string> = {};

  /** "notify <channel id> <text>" -> channel_notify; after the tool message -> an answer quoting it. */
  function notifyingModel(body: ChatRequestBody): FakeReply {
    const tool = [...body.messages].reverse().find((m) => m.role === 'tool');
    if (tool) return { content: `result: ${tool.content}` };
    const user = [...body.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    const m = /^notify (\S+) (.+)$/s.exec(user);
    return m
      ? { tool_calls: [{ name: 'channel_notify', args: { channel_id: m[1], text: m[2] } }] }
      : { content: 'nothing to send' };
  }

  beforeAll(async () => {
    [llm, feishu, slack, wecom] = await Promise.all([
      startFakeOpenAI(notifyingModel),
      startFakeFeishu(FEISHU),
      startFakeSlack(SLACK.botToken),
      startFakeWecom(WECOM),
    ]);
    t = await startTestApp({
      WARDEN_LLM_KEY_FAKE: 'sk-fake',
      LLM_KEY_ORIGINS: `WARDEN_LLM_KEY_FAKE=${new URL(llm.baseUrl).origin}`,
    });
    admin = await t.token('carol', 'acme', ['admin'], { name: 'Carol' });
    const configs: Record<string, Record<string, unknown>> = {
      feishu: {
        app_id: FEISHU.appId,
        app_secret: FEISHU.appSecret,
        chat_id: 'oc_news',
        verification_token: FEISHU.verificationToken,
        base_url: feishu.url,
      },
      slack: {
        bot_token: SLACK.botToken,
        signing_secret: SLACK.signingSecret,
        channel: 'C-NEWS',
        base_url: slack.apiUrl,
      },
      wecom: {
        corp_id: WECOM.corpId,
        corp_secret: WECOM.corpSecret,
        agent_id: 1000002,
        token: WECOM.token,
        encoding_aes_key: WECOM.encodingAesKey,
        to_user: 'bob.wx',
        base_url: wecom.url,
      },
      inbox: {},
    };
    for (const [type, config] of Object.entries(configs)) {
      const res = await t.request('POST', '/api/channels', {
        token: admin,
        body: { type, name: `${type} news`, config },
      });
      expect(res.status).toBe(201);
      channels[type] = res.body.id;
    }
    const agent = await t.request('POST', '/api/agents', {
      token: admin,
      body: {
        name: 'herald',
        instructions: 'You announce things.',
        model_config_json: {
          model: { provider: 'openai', base_url: llm.baseUrl, model: 'fake-1', api_key_env: 'WARDEN_LLM_KEY_FAKE' },
          tools: ['channel_notify'],
        },
      },
    });
    expect(agent.status).toBe(201);
    agentId = agent.body.id;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await Promise.all([llm?.close(), feishu?.close(), slack?.close(), wecom?.close()]);
  });

  /** Where each platform's fake shows a notification text (undefined: not there). */
  const arrived: Record<string, (text: string) => Promise<unknown>> = {
    feishu: (text) =>
      Promise.resolve(feishu.sent.find((m) => m.chatId === 'oc_news' && JSON.stringify(m.content).includes(text))),
    slack: (text) => Promise.resolve(slack.posted.find((m) => m.channel === 'C-NEWS' && m.text === text)),
    wecom: (text) =>
      Promise.resolve(
        wecom.sent.find((m) => m.touser === 'bob.wx' && m.msgtype === 'markdown' && m.markdown.content === text),
      ),
    inbox: async (text) =>
      (await t.request('GET', '/api/notifications', { token: admin })).body.find(
        (n: { text: string }) => n.text === text,
      ),
  };

  it.each(['feishu', 'slack', 'wecom', 'inbox'])(
    "%s: the agent's message arrives, and the model is told where it went",
    async (type) => {
      const text = `**Budget** approved for Q3 (${randomUUID().slice(0, 8)})`;
      const res = await chat(t, admin, { agent_id: agentId, message: `notify ${channels[type]} ${text}` });
      expect(res.status).toBe(200);
      const observation = res.events.find((e) => e.event === 'observation')!.data;
      expect(observation).toMatchObject({
        tool: 'channel_notify',
        blocked: false,
        content: expect.stringContaining(`Notification sent to ${type} channel "${type} news"`),
      });
      expect(res.events.at(-1)!.data.status).toBe('completed');
      expect(await arrived[type](text)).toBeTruthy();
      if (type === 'inbox') {
        const listed = (await t.request('GET', '/api/notifications', { token: admin })).body.find(
          (n: { text: string }) => n.text === text,
        );
        expect(listed).toMatchObject({
          channel_id: channels.inbox,
          agent_id: agentId,
          run_id: res.events[0].data.run_id,
        });
      }
    },
  );

  it('read-only mode: read_only_guard blocks channel_notify and nothing arrives anywhere', async () => {
    expect((await t.request('PUT', '/api/org/read-only', { token: admin, body: { read_only: true } })).status).toBe(
      200,
    );
    try {
      for (const type of ['feishu', 'slack', 'wecom', 'inbox']) {
        const text = `frozen ${type} ${randomUUID().slice(0, 8)}`;
        const res = await chat(t, admin, { agent_id: agentId, message: `notify ${channels[type]} ${text}` });
        const observation = res.events.find((e) => e.event === 'observation')!.data;
        expect(observation).toMatchObject({ blocked: true, blocked_by: 'read_only_guard' });
        expect(observation.content).toMatch(/read-only mode: write tool channel_notify refused/);
        expect(await arrived[type](text)).toBeFalsy();
      }
    } finally {
      await t.request('PUT', '/api/org/read-only', { token: admin, body: { read_only: false } });
    }
  });
});
