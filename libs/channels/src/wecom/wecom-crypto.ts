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
  if (opened.id !== cfg.corpId)
    return { ok: false, status: 401, reason: 'receiveid does not match the channel corp_id' };
  return { ok: true, message: opened.message };
}

/**
 * One field of WeCom's flat XML (CDATA or plain text); WeCom payloads have no nesting we need, and name each field
 * once. Read with indexOf, not a regex: the callback body arrives before its signature is checked, and a regex with
 * `\s*` around `[^<]*` backtracks quadratically on a long run of spaces.
 */
export function xmlField(xml: string, name: string): string | undefined {
  const open = xml.indexOf(`<${name}>`);
  if (open < 0) return undefined;
  const from = open + name.length + 2;
  const close = xml.indexOf(`</${name}>`, from);
  if (close < 0) return undefined;
  const value = xml.slice(from, close).trim();
  if (value.startsWith('<![CDATA[') && value.endsWith(']]>')) return value.slice(9, -3);
  return value.includes('<') ? undefined : value;
}
