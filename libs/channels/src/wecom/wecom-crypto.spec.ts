import { encrypt, getSignature } from '@wecom/crypto';
import { openWecomEnvelope, xmlField } from './wecom-crypto.js';

// channels.md: the WeCom documentation vector.
const vector = {
  token: 'QDG6eK',
  encodingAesKey: 'jWmYm7qr5nMoAUwZRjGtBxmz3KA1tkAj3ykkR6q2B2C',
  corpId: 'wx5823bf96d3bd56c7',
};
const echo = {
  msgSignature: '5c45ff5e21c57e6ad56bac8758b79b1d9ac89fd3',
  timestamp: '1409659589',
  nonce: '263014780',
  encrypt: 'P9nAzCzyDtyTWESHep1vC5X9xho/qYX3Zpb4yKa9SKld1DsH3Iyt3tP3zNdtp+4RPcs8TgAE7OaBO+FZXvnaqQ==',
};
const then = 1409659589 * 1000 + 2000;

describe('WeCom callback crypto', () => {
  it('verifies the documented echostr signature and decrypts it to the documented plaintext', () => {
    expect(openWecomEnvelope(vector, echo, then)).toEqual({ ok: true, message: '1616140317555161061' });
  });

  it.each([
    ['a changed signature', { ...echo, msgSignature: echo.msgSignature.replace(/^5/, '6') }, then, /bad msg_signature/],
    ['a stale timestamp', echo, then + 301_000, /stale/],
    ['a missing nonce', { ...echo, nonce: undefined }, then, /missing/],
  ])('refuses %s', (_, env, now, expected) => {
    const out = openWecomEnvelope(vector, env, now);
    expect(out.ok).toBe(false);
    expect(out.ok ? '' : out.reason).toMatch(expected);
  });

  it('refuses a payload encrypted for another corp (receiveid check)', () => {
    const ts = String(Math.floor(Date.now() / 1000));
    const sign = (enc: string) => ({
      msgSignature: getSignature(vector.token, ts, 'n1', enc),
      timestamp: ts,
      nonce: 'n1',
      encrypt: enc,
    });
    const other = encrypt(vector.encodingAesKey, 'hello', 'wx_other_corp');
    expect(openWecomEnvelope(vector, sign(other))).toEqual({
      ok: false,
      status: 401,
      reason: 'receiveid does not match the channel corp_id',
    });
    const ours = encrypt(vector.encodingAesKey, 'hello', vector.corpId);
    expect(openWecomEnvelope(vector, sign(ours))).toEqual({ ok: true, message: 'hello' });
  });

  it('reads CDATA and plain fields from WeCom XML', () => {
    const xml = '<xml><FromUserName><![CDATA[zhangsan]]></FromUserName><CreateTime>123</CreateTime></xml>';
    expect(xmlField(xml, 'FromUserName')).toBe('zhangsan');
    expect(xmlField(xml, 'CreateTime')).toBe('123');
    expect(xmlField(xml, 'Nope')).toBeUndefined();
  });

  it('reads a field in one pass: 200 000 spaces with no closing tag (unsigned input) answer at once', () => {
    // The regex this replaced backtracked quadratically (or worse) on this body, before its signature was checked.
    const body = `<xml><Encrypt>${' '.repeat(200_000)}x`;
    expect(xmlField(body, 'Encrypt')).toBeUndefined();
    expect(xmlField(`<xml><Encrypt>  <![CDATA[a<b]]>  </Encrypt></xml>`, 'Encrypt')).toBe('a<b');
    expect(xmlField('<xml><MsgType><b>x</b></MsgType></xml>', 'MsgType')).toBeUndefined();
  });
});
