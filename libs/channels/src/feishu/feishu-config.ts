import type { ChannelRecord } from '../channel.js';
import { optionalConfig, requiredConfig, type ConfigKeyRule } from '../shared/config-rules.js';

export const FEISHU_CONFIG: readonly ConfigKeyRule[] = [
  { key: 'app_id', kind: 'string', required: true },
  { key: 'app_secret', kind: 'string', required: true, secret: true },
  { key: 'chat_id', kind: 'string', required: true },
  { key: 'verification_token', kind: 'string', required: true, secret: true },
  { key: 'encrypt_key', kind: 'string', required: false, secret: true },
  { key: 'base_url', kind: 'url', required: false },
  { key: 'approver_open_ids', kind: 'string_list', required: false },
];

/** A Feishu channel's settings, read from its (validated) config; a missing required key refuses the use. */
export interface FeishuConfig {
  appId: string;
  appSecret: string;
  chatId: string;
  verificationToken: string;
  encryptKey?: string;
  baseUrl: string;
}

export const feishuConfig = (channel: ChannelRecord): FeishuConfig => {
  return {
    appId: requiredConfig(channel, 'app_id'),
    appSecret: requiredConfig(channel, 'app_secret'),
    chatId: requiredConfig(channel, 'chat_id'),
    verificationToken: requiredConfig(channel, 'verification_token'),
    encryptKey: optionalConfig(channel, 'encrypt_key'),
    baseUrl: (optionalConfig(channel, 'base_url') ?? 'https://open.feishu.cn').replace(/\/$/, ''),
  };
};
