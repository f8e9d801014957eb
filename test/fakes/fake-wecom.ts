import { encrypt, getSignature } from '@wecom/crypto';
import { randomUUID } from 'node:crypto';
import { startHttpFake, type HttpFake, type RecordedRequest } from './http-fake.js';

export interface FakeWecom extends HttpFake {
  sent: any[];
  updates: any[];
  tokenRequests: RecordedRequest[];
  /** The next API call answers errcode 42001 (access_token expired), as WeCom does after 7200 s. */
  expireTokenOnce(): void;
  /** Makes message/send answer this error; null restores success. */
  failSends(error: { errcode: number; errmsg: string } | null): void;
}

/** WeCom self-built app API: gettoken, message/send, message/update_template_card. */
export async function startFakeWecom(corp: { corpId: string; corpSecret: string }): Promise<FakeWecom> {
  const sent: any[] = [];
  const updates: any[] = [];
  const tokenRequests: RecordedRequest[] = [];
  let current: string | null = null;
  let expireNext = false;
  let failure: { errcode: number; errmsg: string } | null = null;
  const fake = await startHttpFake((req) => {
    if (req.method === 'GET' && req.path === '/cgi-bin/gettoken') {
      tokenRequests.push(req);
      if (req.query.get('corpid') !== corp.corpId || req.query.get('corpsecret') !== corp.corpSecret)
        return { errcode: 40001, errmsg: 'invalid credential' };
      current = `wt-${randomUUID()}`;
      return { errcode: 0, errmsg: 'ok', access_token: current, expires_in: 7200 };
    }
    const token = req.query.get('access_token');
    if (expireNext) {
      expireNext = false;
      current = null;
      return { errcode: 42001, errmsg: 'access_token expired' };
    }
    if (!token || token !== current) return { errcode: 40014, errmsg: 'invalid access_token' };
    if (req.path === '/cgi-bin/message/send') {
      if (failure) return failure;
      sent.push(req.body);
      return { errcode: 0, errmsg: 'ok', msgid: `msg-${sent.length}`, response_code: `rc-${randomUUID()}` };
    }
    if (req.path === '/cgi-bin/message/update_template_card') {
      updates.push(req.body);
      return { errcode: 0, errmsg: 'ok' };
    }
    return { errcode: 404, errmsg: `fake wecom: no route ${req.path}` };
  });
  return Object.assign(fake, {
    sent,
    updates,
    tokenRequests,
    expireTokenOnce: () => (expireNext = true),
    failSends: (e: { errcode: number; errmsg: string } | null) => (failure = e),
  });
}

// ---- client side: what WeCom itself would send to Warden ----

export interface WecomCallbackKeys {
  token: string;
  encodingAesKey: string;
  corpId: string;
}

/** Query string of a signed callback over `encrypted` (tamper options make it invalid in one way). */
export function wecomQuery(
  keys: WecomCallbackKeys,
  encrypted: string,
  opts: { timestampS?: number; badSignature?: boolean; extra?: Record<string, string> } = {},
): string {
  const timestamp = String(opts.timestampS ?? Math.floor(Date.now() / 1000));
  const nonce = String(Math.floor(Math.random() * 1e9));
  const signature = getSignature(opts.badSignature ? 'wrong-token' : keys.token, timestamp, nonce, encrypted);
  return new URLSearchParams({ msg_signature: signature, timestamp, nonce, ...(opts.extra ?? {}) }).toString();
}

/** The GET WeCom sends when the callback URL is saved: `echostr` is the encrypted random string to echo. */
export function wecomEchoQuery(
  keys: WecomCallbackKeys,
  plain: string,
  opts: { receiveId?: string; timestampS?: number; badSignature?: boolean } = {},
): string {
  const echostr = encrypt(keys.encodingAesKey, plain, opts.receiveId ?? keys.corpId);
  return wecomQuery(keys, echostr, { ...opts, extra: { echostr } });
}

/** A template_card_event (button click) as WeCom POSTs it: encrypted inner XML inside <Encrypt>. */
export function wecomCardEvent(
  keys: WecomCallbackKeys,
  click: { fromUser: string; eventKey: string; taskId: string; responseCode?: string; createTime?: number },
  opts: { timestampS?: number; badSignature?: boolean; receiveId?: string } = {},
): { query: string; body: string } {
  const inner =
    `<xml><ToUserName><![CDATA[${keys.corpId}]]></ToUserName><FromUserName><![CDATA[${click.fromUser}]]></FromUserName>` +
    `<CreateTime>${click.createTime ?? Math.floor(Date.now() / 1000)}</CreateTime><MsgType><![CDATA[event]]></MsgType>` +
    `<Event><![CDATA[template_card_event]]></Event><EventKey><![CDATA[${click.eventKey}]]></EventKey>` +
    `<TaskId><![CDATA[${click.taskId}]]></TaskId><CardType><![CDATA[button_interaction]]></CardType>` +
    `<ResponseCode><![CDATA[${click.responseCode ?? `rc-click-${randomUUID()}`}]]></ResponseCode><AgentID>1000002</AgentID></xml>`;
  const encrypted = encrypt(keys.encodingAesKey, inner, opts.receiveId ?? keys.corpId);
  const body = `<xml><ToUserName><![CDATA[${keys.corpId}]]></ToUserName><Encrypt><![CDATA[${encrypted}]]></Encrypt><AgentID><![CDATA[1000002]]></AgentID></xml>`;
  return { query: wecomQuery(keys, encrypted, opts), body };
}
