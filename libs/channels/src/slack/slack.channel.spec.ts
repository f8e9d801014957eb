import { isValidSlackRequest } from '@slack/bolt';
import { slackInteraction } from '../../../../test/fakes/fake-slack.js';
import type { CallbackRequest, ChannelRecord, ParsedCallback } from '../channel.js';
import { slackApprovalMessage } from './slack-blocks.js';
import { SlackChannel } from './slack.channel.js';

const ID = '6f1c2b1e-8d2a-4a51-9a43-1f2e3d4c5b6a';
const SECRET = 'signing-secret-1';
const record: ChannelRecord = {
  id: 'c1',
  orgId: 'o1',
  type: 'slack',
  name: 's',
  config: { bot_token: 'xoxb-1', signing_secret: SECRET, channel: 'C1' },
};
const req = (r: { body: string; headers: Record<string, string> }): CallbackRequest => ({
  method: 'POST',
  rawBody: Buffer.from(r.body),
  headers: r.headers,
  query: {},
});
const value = JSON.stringify({ confirmation_id: ID, decision: 'approve' });
const reason = (p: ParsedCallback) => (p.kind === 'rejected' ? `${p.reply.status} ${p.reason}` : p.kind);

describe('Slack signature (channels.md vector)', () => {
  const body =
    'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
  const headers = {
    'x-slack-signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
    'x-slack-request-timestamp': 1531420618,
  };
  it('verifies the documented request, and not a changed one', () => {
    const nowMilliseconds = 1531420618 * 1000 + 1000;
    expect(
      isValidSlackRequest({ signingSecret: '8f742231b10e8888abcd99yyyzzz85a5', body, headers, nowMilliseconds }),
    ).toBe(true);
    expect(
      isValidSlackRequest({
        signingSecret: '8f742231b10e8888abcd99yyyzzz85a5',
        body: body + 'x',
        headers,
        nowMilliseconds,
      }),
    ).toBe(false);
  });
});

describe('SlackChannel.parseCallback', () => {
  const slack = new SlackChannel();
  it('turns a signed block_actions click into a decision by the Slack user', async () => {
    const p = await slack.parseCallback(
      record,
      req(slackInteraction({ signingSecret: SECRET, value, userId: 'U42', triggerId: 'tr-1' })),
    );
    expect(p).toMatchObject({
      kind: 'decision',
      confirmationId: ID,
      decision: 'approve',
      actor: { platform: 'slack', externalId: 'U42' },
      eventId: 'trigger:tr-1',
    });
  });
  it.each([
    [
      'a bad signature',
      () => slackInteraction({ signingSecret: SECRET, value, userId: 'U1', badSignature: true }),
      /401 bad signature/,
    ],
    [
      'a stale timestamp',
      () =>
        slackInteraction({
          signingSecret: SECRET,
          value,
          userId: 'U1',
          timestampS: Math.floor(Date.now() / 1000) - 301,
        }),
      /401 stale/,
    ],
    [
      'a timestamp from the future',
      () =>
        slackInteraction({
          signingSecret: SECRET,
          value,
          userId: 'U1',
          timestampS: Math.floor(Date.now() / 1000) + 301,
        }),
      /401 stale/,
    ],
    ['missing headers', () => ({ body: 'payload={}', headers: {} }), /401 missing/],
  ])('rejects %s', async (_, build, expected) => {
    expect(reason(await slack.parseCallback(record, req(build())))).toMatch(expected);
  });
  it('rejects a signed body without payload', async () => {
    const signed = slackInteraction({ signingSecret: SECRET, value, userId: 'U1' });
    const ts = signed.headers['x-slack-request-timestamp'];
    const { slackSignature } = await import('../../../../test/fakes/fake-slack.js');
    const p = await slack.parseCallback(
      record,
      req({ body: 'x=1', headers: { ...signed.headers, 'x-slack-signature': slackSignature(SECRET, ts, 'x=1') } }),
    );
    expect(reason(p)).toMatch(/400 form body without payload/);
  });
});

describe('Slack blocks', () => {
  it('puts the confirmation id and decision into each button value', () => {
    const msg = slackApprovalMessage({
      confirmationId: ID,
      agentName: 'a',
      tool: 't',
      args: { x: 1 },
      requestedBy: { userId: 'u' },
      expiresAt: new Date(),
      approverScope: 'initiator',
    });
    const actions = msg.blocks.find((b) => b.type === 'actions') as any;
    expect(actions.elements.map((e: any) => JSON.parse(e.value))).toEqual([
      { confirmation_id: ID, decision: 'approve' },
      { confirmation_id: ID, decision: 'reject' },
    ]);
    expect(actions.elements.map((e: any) => e.style)).toEqual(['primary', 'danger']);
  });
});
