import type { ChannelRecord } from '../channel.js';
import type { ConfigKeyRule } from '../shared/config-rules.js';

export const FEISHU_CONFIG: readonly ConfigKeyRule[] = [
  { key: 'app_id', kind: 'string', required: true },
  { key: 'app_secret', kind: 'string', required: true, secret: true },
  { key: 'chat_id', kind: 'string', required: true },
  { key: 'verification_token', kind: 'string', required: true, secret: true },
  { key: 'encrypt_key', kind: 'string', required: false, secret: true },
  { key: 'base_url', kind: 'url', required: false },
  { key: 'approver_open_ids', kind: 'string_list', required: false },
];

/** A Feishu channel's settings, read from its (validated) config. */
export interface FeishuConfig {
  appId: string;
  appSecret: string;
  chatId: string;
  verificationToken: string;
  encryptKey?: string;
  baseUrl: string;
}

export const feishuConfig = (channel: ChannelRecord): FeishuConfig => {
  const c = channel.config as Record<string, string | undefined>;
  return {
    appId: c.app_id!,
    appSecret: c.app_secret!,
    chatId: c.chat_id!,
    verificationToken: c.verification_token!,
    // eslint-disable-next-line @typescript-eslint/prefer-nullish-coalescing -- an empty key means none
    encryptKey: c.encrypt_key || undefined,
    // eslint-disable-next-line @typescript-eslint/prefer-nullish-coalescing -- an empty URL means the default
    baseUrl: (c.base_url || 'https://open.feishu.cn').replace(/\/$/, ''),
  };
};
