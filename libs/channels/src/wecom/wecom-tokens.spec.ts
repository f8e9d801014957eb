import { WecomTokens } from './wecom-tokens.js';

/** A gettoken endpoint like the fake's: every fetch issues a new token (and voids the previous one). */
function issuer() {
  let issued = 0;
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => (release = r));
  const fetch = async () => {
    issued++;
    const token = `t${issued}`;
    await gate; // every fetch in flight at once, until released
    return Response.json({ errcode: 0, access_token: token, expires_in: 7200 });
  };
  return { fetch, issued: () => issued, release };
}

const cfg = { baseUrl: 'http://wecom', corpId: 'corp', corpSecret: 'secret' };

describe('WecomTokens', () => {
  it('20 callers at once share one token fetch', async () => {
    const wecom = issuer();
    const tokens = new WecomTokens(wecom.fetch);
    const all = Promise.all(Array.from({ length: 20 }, () => tokens.get(cfg)));
    wecom.release();
    expect(new Set(await all)).toEqual(new Set(['t1']));
    expect(wecom.issued()).toBe(1);
  });

  it('callers whose token was refused share one refresh; a caller refused with an older token gets the new one', async () => {
    const wecom = issuer();
    const tokens = new WecomTokens(wecom.fetch);
    wecom.release();
    const first = await tokens.get(cfg);
    const refreshed = await Promise.all(Array.from({ length: 10 }, () => tokens.get(cfg, first)));
    expect(new Set(refreshed)).toEqual(new Set(['t2']));
    expect(await tokens.get(cfg, first)).toBe('t2');
    expect(wecom.issued()).toBe(2);
  });
});
