import { createHash, randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { startHttpFake, type HttpFake } from './http-fake.js';

export interface OidcUser {
  sub: string;
  org: string;
  roles: string[];
  name?: string;
}

export interface FakeOidc extends HttpFake {
  /** Who "logs in" at the next /authorize (the fake has no login page: it signs this user in at once). */
  user: OidcUser;
  /** Token requests whose PKCE verifier did not match the challenge (must stay empty). */
  pkceFailures: number;
}

const b64url = (buf: Buffer) => buf.toString('base64url');

/**
 * An OpenID Connect provider for the authorization code flow with PKCE (S256), as a browser meets it: discovery,
 * /authorize redirecting back with a code, /token checking the code verifier, RS256 tokens, JWKS. CORS is open,
 * as a real provider's is for public (SPA) clients.
 */
export async function startFakeOidc(opts: { clientId: string; audience: string; user: OidcUser }): Promise<FakeOidc> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'fake-1', alg: 'RS256', use: 'sig' };
  const codes = new Map<string, { challenge: string; redirectUri: string; nonce?: string; user: OidcUser }>();
  const sign = (claims: Record<string, unknown>, sub: string, aud: string) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'fake-1' })
      .setIssuer(fake.url)
      .setSubject(sub)
      .setAudience(aud)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);

  const fake = (await startHttpFake(async (req, res) => {
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-allow-headers', '*');
    if (req.method === 'OPTIONS') return void res.writeHead(204).end();
    if (req.path === '/.well-known/openid-configuration') {
      return {
        issuer: fake.url,
        authorization_endpoint: `${fake.url}/authorize`,
        token_endpoint: `${fake.url}/token`,
        jwks_uri: `${fake.url}/jwks`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        grant_types_supported: ['authorization_code'],
      };
    }
    if (req.path === '/jwks') return { keys: [jwk] };
    if (req.path === '/authorize') {
      const q = req.query;
      if (
        q.get('client_id') !== opts.clientId ||
        q.get('response_type') !== 'code' ||
        q.get('code_challenge_method') !== 'S256' ||
        !q.get('code_challenge')
      ) {
        return void res.writeHead(400, { 'content-type': 'text/plain' }).end('bad authorization request');
      }
      const code = b64url(randomBytes(16));
      codes.set(code, {
        challenge: q.get('code_challenge')!,
        redirectUri: q.get('redirect_uri')!,
        nonce: q.get('nonce') ?? undefined,
        user: fake.user,
      });
      const back = new URL(q.get('redirect_uri')!);
      back.searchParams.set('code', code);
      if (q.get('state')) back.searchParams.set('state', q.get('state')!);
      return void res.writeHead(302, { location: back.toString() }).end();
    }
    if (req.path === '/token' && req.method === 'POST') {
      const body = req.body as Record<string, string>;
      const grant = codes.get(body.code);
      codes.delete(body.code);
      const verified =
        b64url(
          createHash('sha256')
            .update(body.code_verifier ?? '')
            .digest(),
        ) === grant?.challenge;
      if (grant?.redirectUri !== body.redirect_uri || !verified) {
        if (grant && !verified) fake.pkceFailures++;
        res.writeHead(400, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ error: 'invalid_grant' }));
      }
      const u = grant.user;
      return {
        token_type: 'Bearer',
        expires_in: 3600,
        scope: 'openid profile',
        access_token: await sign({ org_id: u.org, roles: u.roles, name: u.name }, u.sub, opts.audience),
        id_token: await sign({ name: u.name, ...(grant.nonce ? { nonce: grant.nonce } : {}) }, u.sub, opts.clientId),
      };
    }
    return void res.writeHead(404).end();
  })) as FakeOidc;
  fake.user = opts.user;
  fake.pkceFailures = 0;
  return fake;
}
