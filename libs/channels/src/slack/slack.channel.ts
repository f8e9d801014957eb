import type { isValidSlackRequest } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { EgressPolicy } from '@warden/common';
import { createHash } from 'node:crypto';
import {
  Channel,
  type ApprovalCard,
  type CallbackRequest,
  type ChannelRecord,
  type DecidedCard,
  type DecisionOutcome,
  type ParsedCallback,
  type SentCard,
} from '../channel.js';
import { parseButtonValue } from '../shared/card-text.js';
import { loadSlackBolt, loadSlackWebApi } from '../shared/chat-sdks.js';
import {
  checkConfig,
  optionalConfig,
  requiredConfig,
  secretKeysOf,
  type ConfigKeyRule,
} from '../shared/config-rules.js';
import { rejected } from '../shared/replies.js';
import { headerOf, isFresh } from '../shared/verification.js';
import { slackApprovalMessage, slackDecidedMessage } from './slack-blocks.js';

export const SLACK_CONFIG: readonly ConfigKeyRule[] = [
  { key: 'bot_token', kind: 'string', required: true, secret: true },
  { key: 'signing_secret', kind: 'string', required: true, secret: true },
  { key: 'channel', kind: 'string', required: true },
  { key: 'base_url', kind: 'url', required: false },
  { key: 'approver_user_ids', kind: 'string_list', required: false },
];

interface SlackConfig {
  botToken: string;
  signingSecret: string;
  channel: string;
  apiUrl: string;
}

const slackConfig = (channel: ChannelRecord): SlackConfig => {
  const base = optionalConfig(channel, 'base_url') ?? 'https://slack.com/api/';
  return {
    botToken: requiredConfig(channel, 'bot_token'),
    signingSecret: requiredConfig(channel, 'signing_secret'),
    channel: requiredConfig(channel, 'channel'),
    apiUrl: base.endsWith('/') ? base : `${base}/`,
  };
};

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Slack: Block Kit messages through the official WebClient, interactivity verified with the signing secret. */
@Injectable()
export class SlackChannel extends Channel {
  /** Every call to the platform dials through the egress policy. */
  @Inject(EgressPolicy) private readonly egress!: EgressPolicy;
  readonly type = 'slack' as const;
  readonly secretKeys = secretKeysOf(SLACK_CONFIG);
  private readonly logger = new Logger(SlackChannel.name);
  private readonly clients = new Map<string, WebClient>();

  validateConfig(config: Record<string, unknown>): string[] {
    return checkConfig(SLACK_CONFIG, config);
  }

  async sendApprovalCard(channel: ChannelRecord, card: ApprovalCard): Promise<SentCard> {
    const cfg = slackConfig(channel);
    const res = await this.call('the approval message', async () =>
      (await this.client(cfg)).chat.postMessage({ channel: cfg.channel, ...slackApprovalMessage(card) }),
    );
    return { platformMessageId: res.ts, extra: { channel: res.channel ?? cfg.channel, ts: res.ts } };
  }

  async markDecided(channel: ChannelRecord, sent: SentCard, decided: DecidedCard): Promise<void> {
    const cfg = slackConfig(channel);
    const ts = (sent.extra?.ts as string | undefined) ?? sent.platformMessageId;
    if (!ts) return;
    const target = (sent.extra?.channel as string | undefined) ?? cfg.channel;
    await this.call('the message update', async () =>
      (await this.client(cfg)).chat.update({ channel: target, ts, ...slackDecidedMessage(decided) }),
    );
  }

  override async updatePendingCard(channel: ChannelRecord, sent: SentCard, card: ApprovalCard): Promise<void> {
    const cfg = slackConfig(channel);
    const ts = (sent.extra?.ts as string | undefined) ?? sent.platformMessageId;
    if (!ts) return;
    const target = (sent.extra?.channel as string | undefined) ?? cfg.channel;
    await this.call('the message update', async () =>
      (await this.client(cfg)).chat.update({ channel: target, ts, ...slackApprovalMessage(card) }),
    );
  }

  async sendNotification(channel: ChannelRecord, text: string): Promise<SentCard> {
    const cfg = slackConfig(channel);
    const res = await this.call('the notification', async () =>
      (await this.client(cfg)).chat.postMessage({ channel: cfg.channel, text, mrkdwn: true }),
    );
    return { platformMessageId: res.ts, extra: { channel: res.channel ?? cfg.channel, ts: res.ts } };
  }

  /** Posting to a user id opens the app's direct message with that user. */
  override async sendDirectMessage(channel: ChannelRecord, userId: string, text: string): Promise<void> {
    const cfg = slackConfig(channel);
    await this.call('the direct message', async () =>
      (await this.client(cfg)).chat.postMessage({ channel: userId, text, mrkdwn: false }),
    );
  }

  parseCallback(channel: ChannelRecord, req: CallbackRequest): Promise<ParsedCallback> {
    // A config that cannot verify anything (missing secret) rejects, as the async method did.
    return loadSlackBolt().then((bolt) => this.parse(channel, req, bolt.isValidSlackRequest));
  }

  /**
   * Verification is synchronous (the signature / decryption over the raw body); the answer to a click is sent later.
   */
  private parse(channel: ChannelRecord, req: CallbackRequest, isValid: typeof isValidSlackRequest): ParsedCallback {
    const cfg = slackConfig(channel);
    if (req.method !== 'POST') return rejected(405, 'Slack interactivity callbacks are POST requests');
    const signature = headerOf(req.headers, 'x-slack-signature');
    const ts = headerOf(req.headers, 'x-slack-request-timestamp');
    if (!signature || !ts) return rejected(401, 'missing X-Slack-Signature / X-Slack-Request-Timestamp');
    // Bolt's check only refuses old timestamps; a timestamp from the future is just as suspect.
    if (!isFresh(Number(ts)))
      return rejected(401, 'stale request: X-Slack-Request-Timestamp is outside the 5-minute window');
    const body = req.rawBody.toString('utf8');
    if (
      !isValid({
        signingSecret: cfg.signingSecret,
        body,
        headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': Number(ts) },
      })
    ) {
      return rejected(401, 'bad signature');
    }

    const raw = new URLSearchParams(body).get('payload');
    if (!raw) return rejected(400, 'form body without payload=');
    let payload: unknown;
    try {
      payload = JSON.parse(raw);
    } catch {
      return rejected(400, 'payload is not JSON');
    }
    if (!isObject(payload)) return rejected(400, 'payload is not a JSON object');
    if (payload.type !== 'block_actions') return { kind: 'reply', reply: { status: 200, body: '' } };

    const action: unknown = Array.isArray(payload.actions) ? payload.actions[0] : undefined;
    const user = isObject(payload.user) ? payload.user.id : undefined;
    if (typeof user !== 'string' || user === '') return rejected(400, 'block_actions without user.id');
    const responseUrl = this.trustedResponseUrl(payload.response_url, cfg);
    const button = parseButtonValue(isObject(action) ? action.value : undefined);
    if (!button) {
      if (responseUrl)
        this.postResponse(responseUrl, {
          response_type: 'ephemeral',
          replace_original: false,
          text: 'This button does not belong to an approval request.',
        });
      return {
        kind: 'rejected',
        reason: 'action value does not name a confirmation_id and decision',
        reply: { status: 200, body: '' },
      };
    }
    return {
      kind: 'decision',
      ...button,
      actor: { platform: 'slack', externalId: user },
      eventId: typeof payload.trigger_id === 'string' ? `trigger:${payload.trigger_id}` : `sig:${signature}`,
      // Slack wants an empty 200 within 3 s; the visible answer goes through response_url.
      respond: (outcome: DecisionOutcome) => {
        if (responseUrl) this.postResponse(responseUrl, responseMessage(outcome));
        return { status: 200, body: '' };
      },
    };
  }

  /** Only Slack's own hooks host (or the configured API host, for self-hosted gateways and tests) gets our replies. */
  private trustedResponseUrl(value: unknown, cfg: SlackConfig): string | undefined {
    if (typeof value !== 'string') return undefined;
    try {
      const url = new URL(value);
      const trusted = url.origin === 'https://hooks.slack.com' || url.origin === new URL(cfg.apiUrl).origin;
      return trusted ? url.toString() : undefined;
    } catch {
      return undefined;
    }
  }

  private postResponse(url: string, message: Json): void {
    this.egress
      .fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(message),
        signal: AbortSignal.timeout(10_000),
      })
      .then((res) => {
        if (!res.ok) this.logger.warn(`Slack response_url answered HTTP ${res.status}`);
      })
      .catch((err: unknown) => this.logger.warn(`Slack response_url failed: ${(err as Error).message}`));
  }

  private async client(cfg: SlackConfig): Promise<WebClient> {
    const sdk = await loadSlackWebApi();
    const key = `${cfg.apiUrl}|${createHash('sha256').update(cfg.botToken).digest('hex')}`;
    let client = this.clients.get(key);
    if (!client) {
      // A failed card must fail the gate now, not after minutes of retries.
      client = new sdk.WebClient(cfg.botToken, {
        slackApiUrl: cfg.apiUrl,
        retryConfig: { retries: 0 },
        logLevel: sdk.LogLevel.ERROR,
        timeout: 10_000,
        fetch: this.egress.fetch,
      });
      this.clients.set(key, client);
    }
    return client;
  }

  private async call<T>(what: string, send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (err) {
      const e = err as { code?: string; data?: { error?: string }; message?: string };
      const detail = e.data?.error ?? e.message ?? String(err);
      throw new Error(`Slack refused ${what}: ${detail}`);
    }
  }
}

function responseMessage(outcome: DecisionOutcome): Json {
  if (outcome.ok && outcome.decided) return { replace_original: true, ...slackDecidedMessage(outcome.decided) };
  return { response_type: 'ephemeral', replace_original: false, text: outcome.message };
}
