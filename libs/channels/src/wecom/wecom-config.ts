import type { ChannelRecord } from '../channel.js';
import { missingConfig, optionalConfig, requiredConfig, type ConfigKeyRule } from '../shared/config-rules.js';

// A WeCom channel's config: the keys an admin saves (checked on save) and the settings read from them for a use.

export const WECOM_CONFIG: readonly ConfigKeyRule[] = [
  { key: 'corp_id', kind: 'string', required: true },
  { key: 'corp_secret', kind: 'string', required: true, secret: true },
  { key: 'agent_id', kind: 'integer', required: true },
  { key: 'token', kind: 'string', required: true, secret: true },
  {
    key: 'encoding_aes_key',
    kind: 'string',
    required: true,
    secret: true,
    pattern: { test: /^[A-Za-z0-9+/]{43}$/, says: 'the 43-character EncodingAESKey' },
  },
  { key: 'to_user', kind: 'string', required: true },
  { key: 'base_url', kind: 'url', required: false },
  { key: 'approver_user_ids', kind: 'string_list', required: false },
];

export interface WecomConfig {
  corpId: string;
  corpSecret: string;
  agentId: number;
  token: string;
  encodingAesKey: string;
  toUser: string;
  baseUrl: string;
}

/** A WeCom channel's settings, read from its (validated) config; a missing required key refuses the use. */
export const wecomConfig = (channel: ChannelRecord): WecomConfig => {
  const rawAgentId = channel.config.agent_id;
  const agentId =
    typeof rawAgentId === 'number' || (typeof rawAgentId === 'string' && rawAgentId !== '') ? Number(rawAgentId) : NaN;
  if (!Number.isInteger(agentId)) missingConfig(channel, 'agent_id');
  return {
    corpId: requiredConfig(channel, 'corp_id'),
    corpSecret: requiredConfig(channel, 'corp_secret'),
    agentId,
    token: requiredConfig(channel, 'token'),
    encodingAesKey: requiredConfig(channel, 'encoding_aes_key'),
    toUser: requiredConfig(channel, 'to_user'),
    baseUrl: (optionalConfig(channel, 'base_url') ?? 'https://qyapi.weixin.qq.com').replace(/\/$/, ''),
  };
};

/** What the WeCom API answers (errcode 0: done). */
export interface WecomReply {
  errcode?: number;
  errmsg?: string;
  [key: string]: unknown;
}
