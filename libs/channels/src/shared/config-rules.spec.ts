import { FEISHU_CONFIG } from '../feishu/feishu-config.js';
import { WECOM_CONFIG } from '../wecom/wecom.channel.js';
import { checkConfig } from './config-rules.js';

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
