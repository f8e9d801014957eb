import { exportJWK, generateKeyPair, SignJWT, jwtVerify, type JWK } from 'jose';
import { JwksCache } from './jwks-cache.js';

async function key(kid: string) {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const sign = () => new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid }).setExpirationTime('1h').sign(privateKey);
  return { jwk, sign };
}

/** The JWKS cache on a clock the test moves: refresh at max age, unknown kids after the cooldown, failures keep keys. */
describe('JwksCache', () => {
  let published: JWK[];
  let fetches: number;
  let now: number;
  let down: boolean;
  const removed: string[][] = [];
  const cache = () =>
    new JwksCache(
      new URL('http://idp.test/jwks'),
      {
        maxAgeMs: 600_000,
        cooldownMs: 30_000,
        now: () => now,
        fetch: () => {
          fetches++;
          return Promise.resolve(down ? new Response('down', { status: 503 }) : Response.json({ keys: published }));
        },
      },
      (kids) => removed.push(kids),
    );

  beforeEach(() => {
    fetches = 0;
    now = 1_000_000;
    down = false;
    removed.length = 0;
  });

  it('verifies a rotated-in key after the cooldown, not before (forged kids cost one fetch per cooldown)', async () => {
    const [a, b] = [await key('a'), await key('b')];
    published = [a.jwk];
    const c = cache();
    await jwtVerify(await a.sign(), c.getKey);
    published = [b.jwk, a.jwk];
    await expect(jwtVerify(await b.sign(), c.getKey)).rejects.toThrow(/no applicable key/i);
    expect(fetches).toBe(1);
    now += 30_000;
    await jwtVerify(await b.sign(), c.getKey);
    expect(fetches).toBe(2);
  });

  it('drops a removed key at the max-age refresh and says which', async () => {
    const [a, b] = [await key('a'), await key('b')];
    published = [a.jwk, b.jwk];
    const c = cache();
    const old = await a.sign();
    await jwtVerify(old, c.getKey);
    published = [b.jwk];
    now += 599_999;
    await jwtVerify(old, c.getKey);
    now += 1;
    await expect(jwtVerify(old, c.getKey)).rejects.toThrow(/no applicable key/i);
    expect(removed).toEqual([['a']]);
  });

  it('keeps the keys it has when a refresh fails, and fails when it never had any', async () => {
    const a = await key('a');
    published = [a.jwk];
    const c = cache();
    await jwtVerify(await a.sign(), c.getKey);
    down = true;
    now += 600_000;
    await jwtVerify(await a.sign(), c.getKey);
    await expect(jwtVerify(await a.sign(), cache().getKey)).rejects.toThrow(/HTTP 503/);
  });
});
