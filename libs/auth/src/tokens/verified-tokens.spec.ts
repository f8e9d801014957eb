import { VERIFIED_TOKEN_TTL_MS, VerifiedTokens } from './verified-tokens.js';

describe('VerifiedTokens', () => {
  const now = 1_800_000_000_000;
  const claims = { sub: 'alice' };

  it("reuses a verification until the token's exp, never after", () => {
    const cache = new VerifiedTokens<typeof claims>();
    cache.set('t', claims, now / 1000 + 10, now);
    expect(cache.get('t', now + 9_999)).toBe(claims);
    expect(cache.get('t', now + 10_000)).toBeUndefined();
    expect(cache.get('t', now)).toBeUndefined(); // dropped once expired
  });

  it('reuses a long-lived token for at most the TTL (a key removed from the JWKS stops working within it)', () => {
    const cache = new VerifiedTokens<typeof claims>();
    cache.set('t', claims, now / 1000 + 3600, now);
    expect(cache.get('t', now + VERIFIED_TOKEN_TTL_MS - 1)).toBe(claims);
    expect(cache.get('t', now + VERIFIED_TOKEN_TTL_MS)).toBeUndefined();
  });

  it('keeps nothing for a token already expired, and answers only the exact token', () => {
    const cache = new VerifiedTokens<typeof claims>();
    cache.set('old', claims, now / 1000 - 1, now);
    expect(cache.get('old', now)).toBeUndefined();
    cache.set('t', claims, now / 1000 + 10, now);
    expect(cache.get('t2', now)).toBeUndefined();
  });
});
