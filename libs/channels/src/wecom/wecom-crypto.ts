import { decrypt, getSignature } from '@wecom/crypto';
import { isFresh, safeEqual } from '../shared/verification.js';

export interface WecomEnvelope {
  msgSignature?: string;
  timestamp?: string;
  nonce?: string;
  encrypt?: string;
}

export type WecomOpened = { ok: true; message: string } | { ok: false; status: number; reason: string };

/**
 * Checks msg_signature = SHA1(sort([token, timestamp, nonce, encrypt])) in constant time, the replay window, then
 * AES-decrypts and checks that the receive id is this corp (the library does neither comparison).
 */
export function openWecomEnvelope(
  cfg: { token: string; encodingAesKey: string; corpId: string },
  env: WecomEnvelope,
  nowMs = Date.now(),
): WecomOpened {
  const { msgSignature, timestamp, nonce, encrypt } = env;
  if (!msgSignature || !timestamp || !nonce || !encrypt) {
    return { ok: false, status: 400, reason: 'missing msg_signature, timestamp, nonce or encrypted payload' };
  }
  if (!isFresh(Number(timestamp), nowMs))
    return { ok: false, status: 401, reason: 'stale request: timestamp is outside the 5-minute window' };
  if (!safeEqual(msgSignature, getSignature(cfg.token, timestamp, nonce, encrypt)))
    return { ok: false, status: 401, reason: 'bad msg_signature' };
  let opened: { message: string; id: string };
  try {
    opened = decrypt(cfg.encodingAesKey, encrypt);
  } catch {
    return { ok: false, status: 400, reason: 'payload cannot be decrypted with the configured encoding_aes_key' };
  }
  if (opened.id !== cfg.corpId) return { ok: false, status: 401, reason: 'receiveid does not match the channel corp_id' };
  return { ok: true, message: opened.message };
}

/** One field of WeCom's flat XML (CDATA or plain text); WeCom payloads have no nesting we need. */
export function xmlField(xml: string, name: string): string | undefined {
  const m = new RegExp(`<${name}>\\s*(?:<!\\[CDATA\\[([\\s\\S]*?)\\]\\]>|([^<]*))\\s*</${name}>`).exec(xml);
  if (!m) return undefined;
  // A group that did not take part is undefined, whatever RegExpExecArray's element type says.
  const groups: ReadonlyArray<string | undefined> = m;
  return groups[1] ?? groups[2];
}
