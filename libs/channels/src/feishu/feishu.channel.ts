import * as lark from '@larksuiteoapi/node-sdk';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { EgressPolicy } from '@warden/common';
import { egressLarkHttp } from '../shared/egress-http.js';
import { createHash, randomUUID } from 'node:crypto';
import {
  Channel,
  listOfIds,
  type ApprovalCard,
  type BatchCard,
  type CallbackRequest,
  type ChannelRecord,
  type DecidedCard,
  type ParsedCallback,
  type SentCard,
} from '../channel.js';
import { parseButtonValue } from '../shared/card-text.js';
import { checkConfig, secretKeysOf, type ConfigKeyRule } from '../shared/config-rules.js';
import { rejected } from '../shared/replies.js';
import { headerOf, isFresh, safeEqual } from '../shared/verification.js';
import { decryptFeishu, feishuLegacyCardSignature, feishuSignature } from './feishu-crypto.js';
import { feishuBatchCard } from './feishu-batch-card.js';
import { feishuApprovalCard, feishuDecidedCard, feishuNotificationCard } from './feishu-cards.js';

export const FEISHU_CONFIG: readonly ConfigKeyRule[] = [
  { key: 'app_id', kind: 'string', required: true },
  { key: 'app_secret', kind: 'string', required: true, secret: true },
  { key: 'chat_id', kind: 'string', required: true },
  { key: 'verification_token', kind: 'string', required: true, secret: true },
  { key: 'encrypt_key', kind: 'string', required: false, secret: true },
  { key: 'base_url', kind: 'url', required: false },
  { key: 'approver_open_ids', kind: 'string_list', required: false },
];

interface FeishuConfig {
  appId: string;
  appSecret: string;
  chatId: string;
  verificationToken: string;
  encryptKey?: string;
  baseUrl: string;
}

const feishuConfig = (channel: ChannelRecord): FeishuConfig => {
  const c = channel.config as Record<string, string | undefined>;
  return {
    appId: c.app_id!,
    appSecret: c.app_secret!,
    chatId: c.chat_id!,
    verificationToken: c.verification_token!,
    encryptKey: c.encrypt_key || undefined,
    baseUrl: (c.base_url || 'https://open.feishu.cn').replace(/\/$/, ''),
  };
};

/** Only strings from an SDK log call: error objects carry request headers with the tenant token. */
const plainWords = (msg: unknown[]): string =>
  msg.flat(2).filter((m): m is string => typeof m === 'string').join(' ').slice(0, 300) || '(details withheld)';

interface LarkReply { code?: number; msg?: string; data?: { message_id?: string } }
type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Feishu / Lark: interactive cards through the official SDK, callbacks verified over the raw body. */
@Injectable()
export class FeishuChannel extends Channel {
  /** Every call to the platform dials through the egress policy. */
  @Inject(EgressPolicy) private readonly egress!: EgressPolicy;
  readonly type = 'feishu' as const;
  readonly secretKeys = secretKeysOf(FEISHU_CONFIG);

  override approverAllowList(channel: ChannelRecord): string[] | undefined {
    return listOfIds(channel.config.approver_open_ids);
  }
  /** One SDK client (and so one token cache) per app; the SDK's default cache is module-global. */
  private readonly clients = new Map<string, lark.Client>();
  private readonly logger = new Logger(FeishuChannel.name);
  private readonly sdkLogger: lark.Logger = {
    error: (...msg: unknown[]) => this.logger.warn(`Feishu SDK: ${plainWords(msg)}`),
    warn: (...msg: unknown[]) => this.logger.warn(`Feishu SDK: ${plainWords(msg)}`),
    info: () => undefined,
    debug: () => undefined,
    trace: () => undefined,
  };

  validateConfig(config: Record<string, unknown>): string[] {
    return checkConfig(FEISHU_CONFIG, config);
  }

  async sendApprovalCard(channel: ChannelRecord, card: ApprovalCard): Promise<SentCard> {
    const cfg = feishuConfig(channel);
    const res = await this.call('the approval card', () =>
      this.client(cfg).im.message.create({
        params: { receive_id_type: 'chat_id' },
        // uuid makes a resend of the same request idempotent on Feishu's side.
        data: { receive_id: cfg.chatId, msg_type: 'interactive', content: JSON.stringify(feishuApprovalCard(card)), uuid: card.confirmationId },
      }),
    );
    return { platformMessageId: res.data?.message_id, extra: { chat_id: cfg.chatId } };
  }

  async markDecided(channel: ChannelRecord, sent: SentCard, decided: DecidedCard): Promise<void> {
    if (!sent.platformMessageId) return;
    const cfg = feishuConfig(channel);
    await this.call('the card update', () =>
      this.client(cfg).im.message.patch({
        path: { message_id: sent.platformMessageId! },
        data: { content: JSON.stringify(feishuDecidedCard(decided)) },
      }),
    );
  }

  async sendNotification(channel: ChannelRecord, text: string): Promise<SentCard> {
    const cfg = feishuConfig(channel);
    const res = await this.call('the notification', () =>
      this.client(cfg).im.message.create({
        params: { receive_id_type: 'chat_id' },
        data: { receive_id: cfg.chatId, msg_type: 'interactive', content: JSON.stringify(feishuNotificationCard(text)), uuid: randomUUID() },
      }),
    );
    return { platformMessageId: res.data?.message_id, extra: { chat_id: cfg.chatId } };
  }

  override async sendBatchCard(channel: ChannelRecord, card: BatchCard): Promise<SentCard> {
    const cfg = feishuConfig(channel);
    const res = await this.call('the approval card', () =>
      this.client(cfg).im.message.create({
        params: { receive_id_type: 'chat_id' },
        data: { receive_id: cfg.chatId, msg_type: 'interactive', content: JSON.stringify(feishuBatchCard(card)), uuid: createHash('sha256').update(card.batchKey).digest('hex').slice(0, 36) },
      }),
    );
    return { platformMessageId: res.data?.message_id, extra: { chat_id: cfg.chatId } };
  }

  override async updateBatchCard(channel: ChannelRecord, sent: SentCard, card: BatchCard): Promise<void> {
    if (!sent.platformMessageId) return;
    const cfg = feishuConfig(channel);
    await this.call('the card update', () =>
      this.client(cfg).im.message.patch({ path: { message_id: sent.platformMessageId! }, data: { content: JSON.stringify(feishuBatchCard(card)) } }),
    );
  }

  override async updatePendingCard(channel: ChannelRecord, sent: SentCard, card: ApprovalCard): Promise<void> {
    if (!sent.platformMessageId) return;
    const cfg = feishuConfig(channel);
    await this.call('the card update', () =>
      this.client(cfg).im.message.patch({ path: { message_id: sent.platformMessageId! }, data: { content: JSON.stringify(feishuApprovalCard(card)) } }),
    );
  }

  override async sendDirectMessage(channel: ChannelRecord, openId: string, text: string): Promise<void> {
    const cfg = feishuConfig(channel);
    await this.call('the direct message', () =>
      this.client(cfg).im.message.create({
        params: { receive_id_type: 'open_id' },
        data: { receive_id: openId, msg_type: 'text', content: JSON.stringify({ text }), uuid: randomUUID() },
      }),
    );
  }

  async parseCallback(channel: ChannelRecord, req: CallbackRequest): Promise<ParsedCallback> {
    const cfg = feishuConfig(channel);
    if (req.method !== 'POST') return rejected(405, 'Feishu callbacks are POST requests');
    let outer: unknown;
    try {
      outer = JSON.parse(req.rawBody.toString('utf8'));
    } catch {
      return rejected(400, 'body is not JSON');
    }
    if (!isObject(outer)) return rejected(400, 'body is not a JSON object');

    // The signature covers the raw bytes (the SDK hashes a re-serialisation, which differs from what was sent).
    const signature = headerOf(req.headers, 'x-lark-signature');
    let signed = false;
    if (signature !== undefined) {
      const ts = headerOf(req.headers, 'x-lark-request-timestamp');
      const nonce = headerOf(req.headers, 'x-lark-request-nonce');
      if (!ts || !nonce) return rejected(401, 'X-Lark-Signature without X-Lark-Request-Timestamp / X-Lark-Request-Nonce');
      if (!isFresh(Number(ts))) return rejected(401, 'stale request: X-Lark-Request-Timestamp is outside the 5-minute window');
      const valid =
        safeEqual(signature, feishuSignature(ts, nonce, cfg.encryptKey ?? '', req.rawBody)) ||
        safeEqual(signature, feishuLegacyCardSignature(ts, nonce, cfg.verificationToken, req.rawBody));
      if (!valid) return rejected(401, 'bad signature');
      signed = true;
    }

    let payload: Json = outer;
    if (typeof outer.encrypt === 'string') {
      if (!cfg.encryptKey) return rejected(400, 'encrypted body, but the channel has no encrypt_key');
      try {
        const inner: unknown = JSON.parse(decryptFeishu(cfg.encryptKey, outer.encrypt));
        if (!isObject(inner)) return rejected(400, 'decrypted body is not a JSON object');
        payload = inner;
      } catch {
        return rejected(400, 'encrypted body cannot be decrypted with the configured encrypt_key');
      }
    }

    // url_verification comes without signature headers: the verification token inside is the proof.
    if (payload.type === 'url_verification') {
      if (typeof payload.token !== 'string' || !safeEqual(payload.token, cfg.verificationToken)) return rejected(401, 'wrong verification token');
      if (typeof payload.challenge !== 'string') return rejected(400, 'url_verification without a challenge');
      return { kind: 'reply', reply: { status: 200, body: { challenge: payload.challenge } } };
    }
    if (cfg.encryptKey && !signed) return rejected(401, 'missing X-Lark-Signature (required when an encrypt key is set)');

    let value: unknown;
    let operator: unknown;
    let eventId: string | undefined;
    if (payload.schema === '2.0') {
      const header = payload.header;
      if (!isObject(header)) return rejected(400, 'schema 2.0 event without a header');
      if (typeof header.token !== 'string' || !safeEqual(header.token, cfg.verificationToken)) return rejected(401, 'wrong verification token');
      if (!isFresh(Number(header.create_time) / 1000)) return rejected(401, 'stale event: header.create_time is outside the 5-minute window');
      if (header.event_type !== 'card.action.trigger') return { kind: 'reply', reply: { status: 200, body: {} } };
      const event = isObject(payload.event) ? payload.event : {};
      value = isObject(event.action) ? event.action.value : undefined;
      operator = isObject(event.operator) ? event.operator.open_id : undefined;
      eventId = typeof header.event_id === 'string' ? header.event_id : undefined;
    } else if (isObject(payload.action)) {
      // The legacy card request's `token` is a card-update token, not the verification token: only the signature proves it.
      if (!signed) return rejected(401, 'legacy card callback without a signature');
      value = payload.action.value;
      operator = payload.open_id;
    } else {
      return rejected(400, 'unrecognised Feishu payload (expected url_verification, a schema 2.0 event or a card action)');
    }
    if (!eventId && signature) eventId = `sig:${signature}`;

    if (typeof operator !== 'string' || operator === '') return rejected(400, 'card action without an operator open_id');
    const button = parseButtonValue(value);
    if (!button) {
      return {
        kind: 'rejected',
        reason: 'card action value does not name a confirmation_id and decision',
        reply: { status: 200, body: { toast: { type: 'error', content: 'This button does not belong to an approval request.' } } },
      };
    }
    return {
      kind: 'decision',
      ...button,
      actor: { platform: 'feishu', externalId: operator },
      eventId,
      respond: (outcome) => ({
        status: 200,
        body:
          outcome.ok && outcome.decided
            ? { toast: { type: 'success', content: outcome.message }, card: { type: 'raw', data: feishuDecidedCard(outcome.decided) } }
            : { toast: { type: outcome.ok ? (outcome.settled ? 'success' : 'info') : 'error', content: outcome.message } },
      }),
    };
  }

  private client(cfg: FeishuConfig): lark.Client {
    const key = `${cfg.baseUrl}|${cfg.appId}|${createHash('sha256').update(cfg.appSecret).digest('hex')}`;
    let client = this.clients.get(key);
    if (!client) {
      client = new lark.Client({
        appId: cfg.appId,
        appSecret: cfg.appSecret,
        domain: cfg.baseUrl,
        cache: new lark.DefaultCache(),
        httpInstance: egressLarkHttp(this.egress),
        // The SDK logs whole request errors (headers carry the tenant token): keep only its plain-text words;
        // call() reports each failure with its own summary.
        loggerLevel: lark.LoggerLevel.error,
        logger: this.sdkLogger,
      });
      this.clients.set(key, client);
    }
    return client;
  }

  private async call<T extends LarkReply>(what: string, send: () => Promise<T>): Promise<T> {
    let res: T;
    try {
      res = await send();
    } catch (err) {
      const data = (err as { response?: { status?: number; data?: LarkReply } }).response;
      const detail = data ? `HTTP ${data.status}${data.data?.code !== undefined ? ` code ${data.data.code} ${data.data.msg ?? ''}` : ''}` : (err as Error).message;
      throw new Error(`Feishu did not accept ${what}: ${detail}`.trim());
    }
    if (res?.code !== 0) throw new Error(`Feishu refused ${what}: code ${res?.code} ${res?.msg ?? ''}`.trim());
    return res;
  }
}
