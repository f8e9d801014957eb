import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { startTestApp, TEST_DEV_SECRET, type TestApp } from '../support/test-app.js';
import { mintDevToken } from '@warden/auth';

describe('auth (dev mode)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('a valid dev token reaches /api/me and provisions the org and user just in time', async () => {
    const token = await t.token('alice', 'acme', ['admin'], { name: 'Alice' });
    const res = await t.request('GET', '/api/me', { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ sub: 'alice', org: 'acme', roles: ['admin'], name: 'Alice' });
    expect(res.body.user_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.identities).toEqual({ feishu_open_id: null, slack_user_id: null, wecom_user_id: null });
  });

  it.each([
    ['no token', undefined, /missing bearer token/],
    ['garbage', 'not-a-jwt', /malformed/],
  ])('rejects %s with 401', async (_, token, message) => {
    const res = await t.request('GET', '/api/me', { token });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(message);
  });

  it('rejects an expired token', async () => {
    const token = await new SignJWT({ org_id: 'acme', roles: [] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('alice')
      .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .sign(new TextEncoder().encode(TEST_DEV_SECRET));
    const res = await t.request('GET', '/api/me', { token });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('token expired');
  });

  it('rejects a token signed with another secret', async () => {
    const token = await mintDevToken('some-other-secret-0123456789', { sub: 'alice', org: 'acme' });
    const res = await t.request('GET', '/api/me', { token });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('token signature is invalid');
  });

  it('rejects a token without the org claim', async () => {
    const token = await new SignJWT({ roles: [] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('alice')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(TEST_DEV_SECRET));
    const res = await t.request('GET', '/api/me', { token });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('token has no org_id claim');
  });

  it('a member calling an admin route gets 403 and changes nothing', async () => {
    const member = await t.token('bob', 'acme', []);
    const res = await t.request('PUT', '/api/org/read-only', { token: member, body: { read_only: true } });
    expect(res.status).toBe(403);
    const org = await t.request('GET', '/api/org', { token: member });
    expect(org.body.read_only).toBe(false);
  });

  it('rejects unknown fields with 400 naming them', async () => {
    const admin = await t.token('alice', 'acme', ['admin']);
    const res = await t.request('PUT', '/api/org/read-only', { token: admin, body: { read_only: true, extra: 1 } });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.message)).toMatch(/property extra should not exist/);
  });

  describe('org isolation', () => {
    it('a user of org B gets 404 for org A users and cannot link their identities', async () => {
      const aliceA = await t.token('alice-a', 'org-a', ['admin']);
      const bobB = await t.token('bob-b', 'org-b', ['admin']);
      await t.request('GET', '/api/me', { token: aliceA });
      await t.request('GET', '/api/me', { token: bobB });

      expect((await t.request('GET', '/api/users/alice-a', { token: aliceA })).status).toBe(200);
      const get = await t.request('GET', '/api/users/alice-a', { token: bobB });
      expect(get.status).toBe(404);
      const put = await t.request('PUT', '/api/users/alice-a/identities', {
        token: bobB,
        body: { feishu_open_id: 'ou_evil' },
      });
      expect(put.status).toBe(404);
      const list = await t.request('GET', '/api/users', { token: bobB });
      expect(list.body.map((u: { sub: string }) => u.sub)).toEqual(['bob-b']);
      const me = await t.request('GET', '/api/me', { token: aliceA });
      expect(me.body.identities.feishu_open_id).toBeNull();
    });

    it('identities: an admin links, a member may only unlink their own (linking needs proof), duplicates conflict', async () => {
      const carol = await t.token('carol', 'org-c', []);
      const dave = await t.token('dave', 'org-c', []);
      const admin = await t.token('erin', 'org-c', ['admin']);
      await t.request('GET', '/api/me', { token: dave });
      const self = await t.request('PUT', '/api/users/carol/identities', {
        token: carol,
        body: { feishu_open_id: 'ou_carol' },
      });
      expect(self.status).toBe(403);
      expect(self.body.message).toMatch(/POST \/api\/me\/identities\/link/);
      const ok = await t.request('PUT', '/api/users/carol/identities', {
        token: admin,
        body: { feishu_open_id: 'ou_carol', slack_user_id: 'U1' },
      });
      expect(ok.status).toBe(200);
      expect(ok.body.identities).toEqual({ feishu_open_id: 'ou_carol', slack_user_id: 'U1', wecom_user_id: null });
      expect(
        (await t.request('PUT', '/api/users/carol/identities', { token: dave, body: { feishu_open_id: 'ou_x' } }))
          .status,
      ).toBe(403);
      const dup = await t.request('PUT', '/api/users/dave/identities', {
        token: admin,
        body: { feishu_open_id: 'ou_carol' },
      });
      expect(dup.status).toBe(409);
      const unlink = await t.request('PUT', '/api/users/carol/identities', {
        token: carol,
        body: { slack_user_id: null },
      });
      expect(unlink.status).toBe(200);
      expect(unlink.body.identities).toEqual({ feishu_open_id: 'ou_carol', slack_user_id: null, wecom_user_id: null });
    });
  });

  it('health is public and checks the database; a 404 route has the error shape', async () => {
    const h = await t.request('GET', '/api/health');
    expect(h.status).toBe(200);
    expect(h.body.info.database.status).toBe('up');
    const nf = await t.request('GET', '/api/nope', { token: await t.token('alice', 'acme') });
    expect(nf.status).toBe(404);
    expect(nf.body).toMatchObject({ statusCode: 404, error: 'Not Found' });
  });

  it('serves the OpenAPI document', async () => {
    const res = await t.request('GET', '/api/docs-json');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.paths)).toContain('/api/me');
  });
});

describe('auth (oidc mode)', () => {
  let t: TestApp;
  let idp: HttpFake;
  let privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  const audience = 'warden-api';

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    privateKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    idp = await startHttpFake((req) => {
      if (req.path === '/.well-known/openid-configuration') return { issuer: idp.url, jwks_uri: `${idp.url}/jwks` };
      if (req.path === '/jwks') return { keys: [jwk] };
      return {};
    });
    t = await startTestApp({ AUTH_MODE: 'oidc', OIDC_ISSUER: idp.url, OIDC_AUDIENCE: audience });
  });
  afterAll(async () => {
    await t.close();
    await idp.close();
  });

  const sign = (claims: Record<string, unknown>, aud = audience) =>
    new SignJWT({ org_id: 'acme', roles: ['admin'], ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setSubject('alice')
      .setIssuer(idp.url)
      .setAudience(aud)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);

  it('accepts an RS256 token from the issuer (JWKS discovered)', async () => {
    const res = await t.request('GET', '/api/me', { token: await sign({}) });
    expect(res.status).toBe(200);
    expect(res.body.roles).toEqual(['admin']);
    expect(idp.requests.some((r) => r.path === '/jwks')).toBe(true);
  });

  it('rejects the wrong audience', async () => {
    const res = await t.request('GET', '/api/me', { token: await sign({}, 'someone-else') });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/"aud"/);
  });

  it('rejects an HS256 dev token', async () => {
    const res = await t.request('GET', '/api/me', {
      token: await mintDevToken(TEST_DEV_SECRET, { sub: 'alice', org: 'acme', roles: ['admin'] }),
    });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/algorithm|not signed/);
  });

  it('rejects a not-yet-valid token', async () => {
    const token = await new SignJWT({ org_id: 'acme' })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setSubject('alice')
      .setIssuer(idp.url)
      .setAudience(audience)
      .setNotBefore('10m')
      .setExpirationTime('1h')
      .sign(privateKey);
    const res = await t.request('GET', '/api/me', { token });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/"nbf"/);
  });
});
