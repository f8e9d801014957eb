import { createHash } from 'node:crypto';
import { loadedLark } from '../shared/chat-sdks.js';

/** X-Lark-Signature of an event/callback when an encrypt key is set: hex(SHA256(ts + nonce + encrypt_key + body)). */
export function feishuSignature(
  timestamp: string,
  nonce: string,
  encryptKey: string,
  rawBody: Buffer | string,
): string {
  return createHash('sha256')
    .update(timestamp + nonce + encryptKey)
    .update(rawBody)
    .digest('hex');
}

/** The legacy card-request URL signs with the verification token and SHA1 instead. */
export function feishuLegacyCardSignature(
  timestamp: string,
  nonce: string,
  verificationToken: string,
  rawBody: Buffer | string,
): string {
  return createHash('sha1')
    .update(timestamp + nonce + verificationToken)
    .update(rawBody)
    .digest('hex');
}

/** Decrypts an `{ encrypt }` body: AES-256-CBC, key = SHA256(encrypt_key), IV = the first 16 bytes (after loadLark). */
export function decryptFeishu(encryptKey: string, encrypt: string): string {
  return new (loadedLark().AESCipher)(encryptKey).decrypt(encrypt);
}
