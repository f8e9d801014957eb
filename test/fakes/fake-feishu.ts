import { createCipheriv, createHash, randomBytes, randomUUID } from 'node:crypto';
import { startHttpFake, type HttpFake, type RecordedRequest } from './http-fake.js';

/** A card or message the fake Feishu accepted. */
export interface FeishuSentMessage {
  messageId: string;
  chatId: string;
  /** `chat_id` for a group message, `open_id` for a direct message to one user. */
  receiveIdType: string;
  msgType: string;
  content: any;
  uuid?: string;
}

export interface FakeFeishu extends HttpFake {
  sent: FeishuSentMessage[];
  patches: Array<{ messageId: string; content: any }>;
  tokenRequests: RecordedRequest[];
  /** Makes every message send answer this Feishu error (e.g. 230002 bot not in chat); null restores success. */
  failSends(error: { code: number; msg: string } | null): void;
}

/**
 * Feishu open platform, as much as Warden uses: tenant_access_token, im/v1/messages create and patch. Requests
 * without the tenant token it issued are refused the way Feishu refuses them.
 */
export async function startFakeFeishu(app: { appId: string; appSecret: string }): Promise<FakeFeishu> {
  const sent: FeishuSentMessage[] = [];
  const patches: FakeFeishu['patches'] = [];
  const tokenRequests: RecordedRequest[] = [];
  const issued = new Set<string>();
  let failure: { code: number; msg: string } | null = null;
  const authorised = (req: RecordedRequest) => issued.has((req.headers.authorization ?? '').replace(/^Bearer /, ''));

  const fake = await startHttpFake((req) => {
    if (req.method === 'POST' && req.path === '/open-apis/auth/v3/tenant_access_token/internal') {
      tokenRequests.push(req);
      if (req.body?.app_id !== app.appId || req.body?.app_secret !== app.appSecret)
        return { code: 10014, msg: 'app secret invalid' };
      const token = `t-${randomUUID()}`;
      issued.add(token);
      return { code: 0, msg: 'ok', tenant_access_token: token, expire: 7200 };
    }
    if (!authorised(req)) return { code: 99991663, msg: 'Invalid access token for authorization.' };
    if (req.method === 'POST' && req.path === '/open-apis/im/v1/messages') {
      const idType = req.query.get('receive_id_type');
      if (idType !== 'chat_id' && idType !== 'open_id') return { code: 230001, msg: 'invalid receive_id_type' };
      if (failure) return failure;
      const messageId = `om_${sent.length + 1}_${randomUUID().slice(0, 8)}`;
      sent.push({
        messageId,
        chatId: req.body.receive_id,
        receiveIdType: idType,
        msgType: req.body.msg_type,
        content: JSON.parse(req.body.content),
        uuid: req.body.uuid,
      });
      return { code: 0, msg: 'success', data: { message_id: messageId } };
    }
    const patch = /^\/open-apis\/im\/v1\/messages\/([^/]+)$/.exec(req.path);
    if (req.method === 'PATCH' && patch) {
      if (!sent.some((m) => m.messageId === patch[1])) return { code: 230011, msg: 'message not found' };
      patches.push({ messageId: patch[1], content: JSON.parse(req.body.content) });
      return { code: 0, msg: 'success', data: {} };
    }
    return { code: 404, msg: `fake feishu: no route ${req.method} ${req.path}` };
  });
  return Object.assign(fake, {
    sent,
    patches,
    tokenRequests,
    failSends: (e: { code: number; msg: string } | null) => (failure = e),
  });
}

// ---- client side: what Feishu itself would send to Warden ----

/** Encrypts like Feishu: AES-256-CBC, key = SHA256(encrypt_key), random IV prepended, base64. */
export function feishuEncrypt(encryptKey: string, plaintext: string): string {
  const key = createHash('sha256').update(encryptKey).digest();
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', key, iv);
  return Buffer.concat([iv, cipher.update(plaintext, 'utf8'), cipher.final()]).toString('base64');
}

/** A schema 2.0 card.action.trigger callback for a button whose value is `value`. */
export function feishuCardAction(opts: {
  verificationToken: string;
  value: unknown;
  openId: string;
  eventId?: string;
  createTimeMs?: number;
}): Record<string, unknown> {
  return {
    schema: '2.0',
    header: {
      event_id: opts.eventId ?? `ev_${randomUUID()}`,
      token: opts.verificationToken,
      create_time: String(opts.createTimeMs ?? Date.now()),
      event_type: 'card.action.trigger',
      tenant_key: 'tenant_fake',
      app_id: 'cli_fake',
    },
    event: {
      operator: { open_id: opts.openId, user_id: 'u_fake', union_id: 'on_fake' },
      token: `c-${randomUUID()}`,
      action: { value: opts.value, tag: 'button', name: 'btn' },
      context: { open_message_id: 'om_fake', open_chat_id: 'oc_fake' },
    },
  };
}

/** The legacy card-request format (message card URL). */
export function feishuLegacyCardAction(opts: { value: unknown; openId: string }): Record<string, unknown> {
  return {
    open_id: opts.openId,
    user_id: 'u_fake',
    open_message_id: 'om_fake',
    tenant_key: 'tenant_fake',
    token: `c-${randomUUID()}`,
    action: { value: opts.value, tag: 'button' },
  };
}

/**
 * The HTTP request Feishu would make: optionally encrypted (`{ encrypt }`), signed with
 * SHA256(ts + nonce + encrypt_key + body) when `sign` says how. `tamper` changes the body after signing.
 */
export function feishuRequest(
  payload: Record<string, unknown>,
  opts: {
    encryptKey?: string;
    encrypt?: boolean;
    sign?: 'encrypt_key' | 'legacy' | 'none';
    verificationToken?: string;
    timestampS?: number;
    badSignature?: boolean;
  },
): { body: string; headers: Record<string, string> } {
  const body = opts.encrypt
    ? JSON.stringify({ encrypt: feishuEncrypt(opts.encryptKey!, JSON.stringify(payload)) })
    : JSON.stringify(payload);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const sign = opts.sign ?? (opts.encryptKey ? 'encrypt_key' : 'none');
  if (sign !== 'none') {
    const ts = String(opts.timestampS ?? Math.floor(Date.now() / 1000));
    const nonce = randomUUID();
    const signature =
      sign === 'encrypt_key'
        ? createHash('sha256')
            .update(ts + nonce + String(opts.encryptKey) + body)
            .digest('hex')
        : createHash('sha1')
            .update(ts + nonce + String(opts.verificationToken) + body)
            .digest('hex');
    Object.assign(headers, {
      'x-lark-request-timestamp': ts,
      'x-lark-request-nonce': nonce,
      'x-lark-signature': opts.badSignature ? signature.replace(/^./, (c) => (c === '0' ? '1' : '0')) : signature,
    });
  }
  return { body, headers };
}
