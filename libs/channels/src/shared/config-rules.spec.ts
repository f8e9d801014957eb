import { DomainErrorKind } from '@warden/common';
import type { CallbackRequest, ChannelRecord } from '../channel.js';
import { FEISHU_CONFIG } from '../feishu/feishu-config.js';
import { FeishuChannel } from '../feishu/feishu.channel.js';
import { SlackChannel } from '../slack/slack.channel.js';
import { WECOM_CONFIG, WecomChannel } from '../wecom/wecom.channel.js';
import { checkConfig, optionalConfig, requiredConfig } from './config-rules.js';

describe('checkConfig', () => {
  it('names every missing, malformed and unknown key', () => {
    const problems = checkConfig(FEISHU_CONFIG, {
      app_id: 'cli',
      chat_id: 7,
      base_url: 'ftp://x',
      approver_open_ids: 'ou_1',
      colour: 'red',
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        'config.app_secret is required',
        'config.verification_token is required',
        'config.chat_id must be a non-empty string',
        'config.base_url must be an http(s) URL',
        'config.approver_open_ids must be a list of non-empty strings',
        expect.stringMatching(/^config.colour is not a known key/),
      ]),
    );
    expect(problems).toHaveLength(6);
  });
  it('accepts a complete config and checks key shapes', () => {
    const ok = {
      corp_id: 'ww1',
      corp_secret: 's',
      agent_id: 1000002,
      token: 't',
      encoding_aes_key: 'jWmYm7qr5nMoAUwZRjGtBxmz3KA1tkAj3ykkR6q2B2C',
      to_user: '@all',
    };
    expect(checkConfig(WECOM_CONFIG, ok)).toEqual([]);
    expect(checkConfig(WECOM_CONFIG, { ...ok, encoding_aes_key: 'short', agent_id: 'x' })).toEqual([
      'config.agent_id must be an integer',
      'config.encoding_aes_key must be the 43-character EncodingAESKey',
    ]);
  });
});

describe('a stored config missing a required key', () => {
  const record = (type: ChannelRecord['type'], config: Record<string, unknown>): ChannelRecord => ({
    id: 'c1',
    orgId: 'o1',
    type,
    name: 'n',
    config,
  });
  const req: CallbackRequest = { method: 'POST', rawBody: Buffer.from('{}'), headers: {}, query: {} };

  it('refuses the send with a 409 naming the key, before anything is dialled', async () => {
    const feishu = record('feishu', { app_id: 'cli', chat_id: 'oc_1', verification_token: 't' });
    await expect(new FeishuChannel().sendNotification(feishu, 'hi')).rejects.toThrow(
      expect.objectContaining({
        kind: DomainErrorKind.Conflict,
        message: expect.stringContaining('config.app_secret is not set'),
      }),
    );
    const slack = record('slack', { signing_secret: 's', channel: 'C1' });
    await expect(new SlackChannel().sendNotification(slack, 'hi')).rejects.toThrow(/config\.bot_token is not set/);
    const wecom = record('wecom', {
      corp_id: 'w',
      corp_secret: 's',
      token: 't',
      encoding_aes_key: 'k',
      to_user: '@all',
    });
    await expect(new WecomChannel().sendNotification(wecom, 'hi')).rejects.toThrow(/config\.agent_id is not set/);
  });

  it('refuses the callback instead of verifying against undefined', async () => {
    await expect(
      new SlackChannel().parseCallback(record('slack', { bot_token: 'x', channel: 'C1' }), req),
    ).rejects.toThrow(/config\.signing_secret is not set/);
    await expect(
      new FeishuChannel().parseCallback(record('feishu', { app_id: 'a', app_secret: 's', chat_id: 'c' }), req),
    ).rejects.toThrow(/config\.verification_token is not set/);
    await expect(
      new WecomChannel().parseCallback(record('wecom', { corp_id: 'w', agent_id: 1, to_user: '@all' }), req),
    ).rejects.toThrow(/config\.corp_secret is not set/);
  });

  it('treats an empty optional key as not set', () => {
    const c = record('feishu', {
      app_id: 'a',
      app_secret: 's',
      chat_id: 'c',
      verification_token: 't',
      encrypt_key: '',
      base_url: '',
    });
    expect(requiredConfig(c, 'app_id')).toBe('a');
    expect(optionalConfig(c, 'encrypt_key')).toBeUndefined();
    expect(optionalConfig(c, 'base_url')).toBeUndefined();
  });
});
