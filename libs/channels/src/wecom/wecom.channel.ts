import { Inject, Injectable, Logger } from '@nestjs/common';
import { EgressPolicy, isUuid } from '@warden/common';
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
import { STATUS_WORDS } from '../shared/card-text.js';
import { wecomApprovalCard } from './wecom-cards.js';
import { checkConfig, secretKeysOf } from '../shared/config-rules.js';
import { rejected } from '../shared/replies.js';
import { openWecomEnvelope, xmlField } from './wecom-crypto.js';
import { WecomTokens } from './wecom-tokens.js';
import { WECOM_CONFIG, wecomConfig, type WecomConfig, type WecomReply } from './wecom-config.js';

export { WECOM_CONFIG, type WecomConfig, type WecomReply } from './wecom-config.js';

/** Token errors after which a fresh token is fetched once: expired (42001), invalid (40014, 40001). */
const STALE_TOKEN_CODES = new Set([42001, 40014, 40001]);

/** Targets of an update: the same people the card was sent to. */
const updateTargets = (toUser: string) =>
  toUser === '@all' ? { atall: 1 } : { userids: toUser.split('|').filter(Boolean) };

/** WeCom (企业微信): template cards via the self-built app API, encrypted XML callbacks. */
@Injectable()
export class WecomChannel extends Channel {
  /** Every call to the platform dials through the egress policy. */
  @Inject(EgressPolicy) private readonly egress!: EgressPolicy;
  readonly type = 'wecom' as const;
  readonly secretKeys = secretKeysOf(WECOM_CONFIG);
  private readonly logger = new Logger(WecomChannel.name);
  /** access_token per corp + secret (7200 s, refreshed 5 minutes early or when WeCom says it is stale). */
  private readonly tokens = new WecomTokens((url) => this.egress.fetch(url, { signal: AbortSignal.timeout(10_000) }));

  validateConfig(config: Record<string, unknown>): string[] {
    return checkConfig(WECOM_CONFIG, config);
  }

  async sendApprovalCard(channel: ChannelRecord, card: ApprovalCard): Promise<SentCard> {
    const cfg = wecomConfig(channel);
    const res = await this.api(cfg, 'the approval card', '/cgi-bin/message/send', {
      touser: cfg.toUser,
      msgtype: 'template_card',
      agentid: cfg.agentId,
      template_card: wecomApprovalCard(card),
    });
    return {
      platformMessageId: res.msgid as string | undefined,
      extra: { response_code: res.response_code, task_id: card.confirmationId },
    };
  }

  async markDecided(channel: ChannelRecord, sent: SentCard, decided: DecidedCard): Promise<void> {
    const code = sent.extra?.response_code;
    if (typeof code !== 'string' || !code) return;
    await this.updateCard(wecomConfig(channel), code, decided);
  }

  async sendNotification(channel: ChannelRecord, text: string): Promise<SentCard> {
    const cfg = wecomConfig(channel);
    const res = await this.api(cfg, 'the notification', '/cgi-bin/message/send', {
      touser: cfg.toUser,
      msgtype: 'markdown',
      agentid: cfg.agentId,
      markdown: { content: text },
    });
    return { platformMessageId: res.msgid as string | undefined };
  }

  override async sendDirectMessage(channel: ChannelRecord, userId: string, text: string): Promise<void> {
    const cfg = wecomConfig(channel);
    await this.api(cfg, 'the direct message', '/cgi-bin/message/send', {
      touser: userId,
      msgtype: 'text',
      agentid: cfg.agentId,
      text: { content: text },
    });
  }

  parseCallback(channel: ChannelRecord, req: CallbackRequest): Promise<ParsedCallback> {
    // A config that cannot verify anything (missing secret) rejects, as the async method did.
    return new Promise((resolve) => resolve(this.parse(channel, req)));
  }

  /**
   * Verification is synchronous (the signature / decryption over the raw body); the answer to a click is sent later.
   */
  private parse(channel: ChannelRecord, req: CallbackRequest): ParsedCallback {
    const cfg = wecomConfig(channel);
    const q = req.query;
    if (req.method === 'GET') {
      // URL verification when the callback is configured: answer the decrypted echostr as plain text.
      const opened = openWecomEnvelope(cfg, {
        msgSignature: q.msg_signature,
        timestamp: q.timestamp,
        nonce: q.nonce,
        encrypt: q.echostr,
      });
      if (!opened.ok) return rejected(opened.status, opened.reason);
      return { kind: 'reply', reply: { status: 200, body: opened.message, contentType: 'text/plain' } };
    }
    const xml = req.rawBody.toString('utf8');
    const encrypt = xmlField(xml, 'Encrypt');
    if (!encrypt) return rejected(400, 'body is not WeCom callback XML with an <Encrypt> element');
    const opened = openWecomEnvelope(cfg, {
      msgSignature: q.msg_signature,
      timestamp: q.timestamp,
      nonce: q.nonce,
      encrypt,
    });
    if (!opened.ok) return rejected(opened.status, opened.reason);

    const inner = opened.message;
    const ack = { status: 200, body: '', contentType: 'text/plain' };
    if (xmlField(inner, 'MsgType') !== 'event' || xmlField(inner, 'Event') !== 'template_card_event')
      return { kind: 'reply', reply: ack };
    const user = xmlField(inner, 'FromUserName');
    const eventKey = xmlField(inner, 'EventKey') ?? '';
    const taskId = xmlField(inner, 'TaskId');
    const responseCode = xmlField(inner, 'ResponseCode');
    if (!user) return rejected(400, 'template_card_event without FromUserName');
    const m = /^(approve|reject):(.+)$/.exec(eventKey);
    if (!m || !isUuid(m[2]) || taskId !== m[2]) {
      return {
        kind: 'rejected',
        reason: "button key does not name this card's confirmation and a decision",
        reply: ack,
      };
    }
    return {
      kind: 'decision',
      confirmationId: m[2],
      decision: m[1] as 'approve' | 'reject',
      actor: { platform: 'wecom', externalId: user },
      // WeCom retries a delivery up to 3 times; user + create time + key identifies the click.
      eventId: `${user}:${xmlField(inner, 'CreateTime') ?? ''}:${eventKey}`,
      respond: (outcome: DecisionOutcome) => {
        this.answerClick(cfg, user, responseCode, outcome);
        return ack;
      },
    };
  }

  /** WeCom wants the HTTP answer within 5 s; the visible result (card update or a message) is sent after it. */
  private answerClick(
    cfg: WecomConfig,
    user: string,
    responseCode: string | undefined,
    outcome: DecisionOutcome,
  ): void {
    const work =
      outcome.ok && outcome.decided && responseCode
        ? this.updateCard(cfg, responseCode, outcome.decided)
        : this.api(cfg, 'the click answer', '/cgi-bin/message/send', {
            touser: user,
            msgtype: 'text',
            agentid: cfg.agentId,
            text: { content: outcome.message },
          });
    work.catch((err: unknown) => this.logger.error(`WeCom click answer failed: ${(err as Error).message}`));
  }

  private async updateCard(cfg: WecomConfig, responseCode: string, decided: DecidedCard): Promise<void> {
    await this.api(cfg, 'the card update', '/cgi-bin/message/update_template_card', {
      ...updateTargets(cfg.toUser),
      agentid: cfg.agentId,
      response_code: responseCode,
      button: {
        replace_name: `${STATUS_WORDS[decided.status]} by ${decided.decidedBy}`.replace(/\s+/g, ' ').slice(0, 40),
      },
    });
  }

  private async api(cfg: WecomConfig, what: string, path: string, body: Record<string, unknown>): Promise<WecomReply> {
    const token = await this.tokens.get(cfg);
    let res = await this.post(cfg, what, path, body, token);
    if (STALE_TOKEN_CODES.has(res.errcode ?? 0))
      res = await this.post(cfg, what, path, body, await this.tokens.get(cfg, token));
    if (res.errcode !== 0) throw new Error(`WeCom refused ${what}: errcode ${res.errcode} ${res.errmsg ?? ''}`.trim());
    return res;
  }

  private async post(
    cfg: WecomConfig,
    what: string,
    path: string,
    body: Record<string, unknown>,
    token: string,
  ): Promise<WecomReply> {
    const url = `${cfg.baseUrl}${path}?access_token=${encodeURIComponent(token)}`;
    let res: Response;
    try {
      res = await this.egress.fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
    } catch (err) {
      throw new Error(`WeCom did not accept ${what}: ${(err as Error).message}`);
    }
    if (!res.ok) throw new Error(`WeCom did not accept ${what}: HTTP ${res.status}`);
    return (await res.json()) as WecomReply;
  }
}
