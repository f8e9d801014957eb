import type * as lark from '@larksuiteoapi/node-sdk';
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
import { loadLark } from '../shared/chat-sdks.js';
import { checkConfig, secretKeysOf } from '../shared/config-rules.js';
import { feishuBatchCard } from './feishu-batch-card.js';
import { parseFeishuCallback } from './feishu-callback.js';
import { FEISHU_CONFIG, feishuConfig, type FeishuConfig } from './feishu-config.js';
import { feishuApprovalCard, feishuDecidedCard, feishuNotificationCard } from './feishu-cards.js';

/** Only strings from an SDK log call: error objects carry request headers with the tenant token. */
const plainWords = (msg: unknown[]): string =>
  msg
    .flat(2)
    .filter((m): m is string => typeof m === 'string')
    .join(' ')
    .slice(0, 300) || '(details withheld)';

interface LarkReply {
  code?: number;
  msg?: string;
  data?: { message_id?: string };
}

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
    const res = await this.call('the approval card', async () =>
      (await this.client(cfg)).im.message.create({
        params: { receive_id_type: 'chat_id' },
        // uuid makes a resend of the same request idempotent on Feishu's side.
        data: {
          receive_id: cfg.chatId,
          msg_type: 'interactive',
          content: JSON.stringify(feishuApprovalCard(card)),
          uuid: card.confirmationId,
        },
      }),
    );
    return { platformMessageId: res.data?.message_id, extra: { chat_id: cfg.chatId } };
  }

  async markDecided(channel: ChannelRecord, sent: SentCard, decided: DecidedCard): Promise<void> {
    const messageId = sent.platformMessageId;
    if (!messageId) return;
    const cfg = feishuConfig(channel);
    await this.call('the card update', async () =>
      (await this.client(cfg)).im.message.patch({
        path: { message_id: messageId },
        data: { content: JSON.stringify(feishuDecidedCard(decided)) },
      }),
    );
  }

  async sendNotification(channel: ChannelRecord, text: string): Promise<SentCard> {
    const cfg = feishuConfig(channel);
    const res = await this.call('the notification', async () =>
      (await this.client(cfg)).im.message.create({
        params: { receive_id_type: 'chat_id' },
        data: {
          receive_id: cfg.chatId,
          msg_type: 'interactive',
          content: JSON.stringify(feishuNotificationCard(text)),
          uuid: randomUUID(),
        },
      }),
    );
    return { platformMessageId: res.data?.message_id, extra: { chat_id: cfg.chatId } };
  }

  override async sendBatchCard(channel: ChannelRecord, card: BatchCard): Promise<SentCard> {
    const cfg = feishuConfig(channel);
    const res = await this.call('the approval card', async () =>
      (await this.client(cfg)).im.message.create({
        params: { receive_id_type: 'chat_id' },
        data: {
          receive_id: cfg.chatId,
          msg_type: 'interactive',
          content: JSON.stringify(feishuBatchCard(card)),
          uuid: createHash('sha256').update(card.batchKey).digest('hex').slice(0, 36),
        },
      }),
    );
    return { platformMessageId: res.data?.message_id, extra: { chat_id: cfg.chatId } };
  }

  override async updateBatchCard(channel: ChannelRecord, sent: SentCard, card: BatchCard): Promise<void> {
    const messageId = sent.platformMessageId;
    if (!messageId) return;
    const cfg = feishuConfig(channel);
    await this.call('the card update', async () =>
      (await this.client(cfg)).im.message.patch({
        path: { message_id: messageId },
        data: { content: JSON.stringify(feishuBatchCard(card)) },
      }),
    );
  }

  override async updatePendingCard(channel: ChannelRecord, sent: SentCard, card: ApprovalCard): Promise<void> {
    const messageId = sent.platformMessageId;
    if (!messageId) return;
    const cfg = feishuConfig(channel);
    await this.call('the card update', async () =>
      (await this.client(cfg)).im.message.patch({
        path: { message_id: messageId },
        data: { content: JSON.stringify(feishuApprovalCard(card)) },
      }),
    );
  }

  override async sendDirectMessage(channel: ChannelRecord, openId: string, text: string): Promise<void> {
    const cfg = feishuConfig(channel);
    await this.call('the direct message', async () =>
      (await this.client(cfg)).im.message.create({
        params: { receive_id_type: 'open_id' },
        data: { receive_id: openId, msg_type: 'text', content: JSON.stringify({ text }), uuid: randomUUID() },
      }),
    );
  }

  parseCallback(channel: ChannelRecord, req: CallbackRequest): Promise<ParsedCallback> {
    // A config that cannot verify anything (missing secret) rejects, as the async method did.
    return loadLark().then(() => parseFeishuCallback(feishuConfig(channel), req));
  }

  private async client(cfg: FeishuConfig): Promise<lark.Client> {
    const sdk = await loadLark();
    const key = `${cfg.baseUrl}|${cfg.appId}|${createHash('sha256').update(cfg.appSecret).digest('hex')}`;
    let client = this.clients.get(key);
    if (!client) {
      client = new sdk.Client({
        appId: cfg.appId,
        appSecret: cfg.appSecret,
        domain: cfg.baseUrl,
        cache: new sdk.DefaultCache(),
        httpInstance: egressLarkHttp(this.egress),
        // The SDK logs whole request errors (headers carry the tenant token): keep only its plain-text words;
        // call() reports each failure with its own summary.
        loggerLevel: sdk.LoggerLevel.error,
        logger: this.sdkLogger,
      });
      this.clients.set(key, client);
    }
    return client;
  }

  /** The SDK's interceptors unwrap the reply body, which an empty or odd HTTP reply leaves undefined. */
  private async call<T extends LarkReply>(what: string, send: () => Promise<T | undefined>): Promise<T> {
    let res: T | undefined;
    try {
      res = await send();
    } catch (err) {
      const data = (err as { response?: { status?: number; data?: LarkReply } }).response;
      const detail = data
        ? `HTTP ${data.status}${data.data?.code !== undefined ? ` code ${data.data.code} ${data.data.msg ?? ''}` : ''}`
        : (err as Error).message;
      throw new Error(`Feishu did not accept ${what}: ${detail}`.trim());
    }
    if (res?.code !== 0) throw new Error(`Feishu refused ${what}: code ${res?.code} ${res?.msg ?? ''}`.trim());
    return res;
  }
}
