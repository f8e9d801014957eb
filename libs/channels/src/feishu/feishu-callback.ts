import type { CallbackRequest, ParsedCallback } from '../channel.js';
import { parseButtonValue } from '../shared/card-text.js';
import { rejected } from '../shared/replies.js';
import { headerOf, isFresh, safeEqual } from '../shared/verification.js';
import type { FeishuConfig } from './feishu-config.js';
import { decryptFeishu, feishuLegacyCardSignature, feishuSignature } from './feishu-crypto.js';
import { feishuDecidedCard } from './feishu-cards.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A verified, decrypted callback body, or the rejection that ends it. */
type OpenedBody = { payload: Json; signed: boolean; signature: string | undefined } | { done: ParsedCallback };

/** A card click read from a verified body: the button's value, who clicked, and the platform's event id. */
type CardAction = { value: unknown; operator: unknown; eventId: string | undefined } | { done: ParsedCallback };

/**
 * Verifies and reads a Feishu / Lark callback: url_verification, a schema 2.0 `card.action.trigger` event or a
 * legacy card action. Every check runs over the raw body; anything unverified is rejected and changes nothing.
 */
export function parseFeishuCallback(cfg: FeishuConfig, req: CallbackRequest): ParsedCallback {
  if (req.method !== 'POST') return rejected(405, 'Feishu callbacks are POST requests');
  const opened = openBody(cfg, req);
  if ('done' in opened) return opened.done;
  const { payload, signed, signature } = opened;

  // url_verification comes without signature headers: the verification token inside is the proof.
  if (payload.type === 'url_verification') {
    if (typeof payload.token !== 'string' || !safeEqual(payload.token, cfg.verificationToken))
      return rejected(401, 'wrong verification token');
    if (typeof payload.challenge !== 'string') return rejected(400, 'url_verification without a challenge');
    return { kind: 'reply', reply: { status: 200, body: { challenge: payload.challenge } } };
  }
  if (cfg.encryptKey && !signed) return rejected(401, 'missing X-Lark-Signature (required when an encrypt key is set)');

  const action = readCardAction(cfg, payload, signed);
  if ('done' in action) return action.done;
  const { value, operator } = action;
  const eventId = !action.eventId && signature ? `sig:${signature}` : action.eventId;

  if (typeof operator !== 'string' || operator === '') return rejected(400, 'card action without an operator open_id');
  const button = parseButtonValue(value);
  if (!button) {
    return {
      kind: 'rejected',
      reason: 'card action value does not name a confirmation_id and decision',
      reply: {
        status: 200,
        body: { toast: { type: 'error', content: 'This button does not belong to an approval request.' } },
      },
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
          ? {
              toast: { type: 'success', content: outcome.message },
              card: { type: 'raw', data: feishuDecidedCard(outcome.decided) },
            }
          : {
              toast: { type: outcome.ok ? (outcome.settled ? 'success' : 'info') : 'error', content: outcome.message },
            },
    }),
  };
}

/** Parses the body, checks its signature (when signed) and decrypts it (when encrypted). */
function openBody(cfg: FeishuConfig, req: CallbackRequest): OpenedBody {
  let outer: unknown;
  try {
    outer = JSON.parse(req.rawBody.toString('utf8'));
  } catch {
    return { done: rejected(400, 'body is not JSON') };
  }
  if (!isObject(outer)) return { done: rejected(400, 'body is not a JSON object') };

  // The signature covers the raw bytes (the SDK hashes a re-serialisation, which differs from what was sent).
  const signature = headerOf(req.headers, 'x-lark-signature');
  let signed = false;
  if (signature !== undefined) {
    const ts = headerOf(req.headers, 'x-lark-request-timestamp');
    const nonce = headerOf(req.headers, 'x-lark-request-nonce');
    if (!ts || !nonce)
      return { done: rejected(401, 'X-Lark-Signature without X-Lark-Request-Timestamp / X-Lark-Request-Nonce') };
    if (!isFresh(Number(ts)))
      return { done: rejected(401, 'stale request: X-Lark-Request-Timestamp is outside the 5-minute window') };
    const valid =
      safeEqual(signature, feishuSignature(ts, nonce, cfg.encryptKey ?? '', req.rawBody)) ||
      safeEqual(signature, feishuLegacyCardSignature(ts, nonce, cfg.verificationToken, req.rawBody));
    if (!valid) return { done: rejected(401, 'bad signature') };
    signed = true;
  }

  if (typeof outer.encrypt !== 'string') return { payload: outer, signed, signature };
  if (!cfg.encryptKey) return { done: rejected(400, 'encrypted body, but the channel has no encrypt_key') };
  try {
    const inner: unknown = JSON.parse(decryptFeishu(cfg.encryptKey, outer.encrypt));
    if (!isObject(inner)) return { done: rejected(400, 'decrypted body is not a JSON object') };
    return { payload: inner, signed, signature };
  } catch {
    return { done: rejected(400, 'encrypted body cannot be decrypted with the configured encrypt_key') };
  }
}

function readCardAction(cfg: FeishuConfig, payload: Json, signed: boolean): CardAction {
  if (payload.schema === '2.0') {
    const header = payload.header;
    if (!isObject(header)) return { done: rejected(400, 'schema 2.0 event without a header') };
    if (typeof header.token !== 'string' || !safeEqual(header.token, cfg.verificationToken))
      return { done: rejected(401, 'wrong verification token') };
    if (!isFresh(Number(header.create_time) / 1000))
      return { done: rejected(401, 'stale event: header.create_time is outside the 5-minute window') };
    if (header.event_type !== 'card.action.trigger')
      return { done: { kind: 'reply', reply: { status: 200, body: {} } } };
    const event = isObject(payload.event) ? payload.event : {};
    return {
      value: isObject(event.action) ? event.action.value : undefined,
      operator: isObject(event.operator) ? event.operator.open_id : undefined,
      eventId: typeof header.event_id === 'string' ? header.event_id : undefined,
    };
  }
  if (isObject(payload.action)) {
    // The legacy card request's `token` is a card-update token, not the verification token:
    // only the signature proves it.
    if (!signed) return { done: rejected(401, 'legacy card callback without a signature') };
    return { value: payload.action.value, operator: payload.open_id, eventId: undefined };
  }
  return {
    done: rejected(400, 'unrecognised Feishu payload (expected url_verification, a schema 2.0 event or a card action)'),
  };
}
