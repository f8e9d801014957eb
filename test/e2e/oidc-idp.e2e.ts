import { TokenVerifier } from '@warden/auth';
import { startOidcIdp, type IdpService, type OidcIdp } from '../fakes/oidc-idp.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const deployer: IdpService = {
  clientId: 'svc-deployer',
  clientSecret: 'deployer-secret-0123456789',
  org: 'acme',
  groups: ['admin'],
};
const reporter: IdpService = {
  clientId: 'svc-reporter',
  clientSecret: 'reporter-secret-0123456789',
  org: 'acme',
  groups: ['reporting'],
};

/**
 * Warden behind a certified OpenID Provider (oidc-provider): service accounts call the API with client-credentials
 * tokens, the IdP's `groups` claim maps to Warden roles and its `tenant` claim to the org (AUTH_ROLES_CLAIM,
 * AUTH_ORG_CLAIM), and signing keys rotate: a rotated-in key verifies, a removed key's tokens are refused once the
 * key set is refreshed — driven here by TokenVerifier.refreshKeys, the refresh the 10-minute key age also runs.
 */
describe('a certified IdP: client credentials, claim mapping, key rotation (PostgreSQL)', () => {
  let idp: OidcIdp;
  let t: TestApp;

  beforeAll(async () => {
    idp = await startOidcIdp({
      consoleClientId: 'warden-console',
      audience: 'warden-api',
      accounts: [],
      services: [deployer, reporter],
      claims: { org: 'tenant', roles: 'groups' },
    });
    t = await startTestApp({
      AUTH_MODE: 'oidc',
      OIDC_ISSUER: idp.url,
      OIDC_AUDIENCE: 'warden-api',
      AUTH_ORG_CLAIM: 'tenant',
      AUTH_ROLES_CLAIM: 'groups',
    });
    await idp.setConsole(t.url);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await idp?.close();
  });

  const me = (token: string) => t.request('GET', '/api/me', { token });

  it('lets a service account call the API with a client-credentials token; its groups are its roles', async () => {
    const token = await idp.clientCredentialsToken(deployer);
    expect((await me(token)).body).toMatchObject({ sub: 'svc-deployer', org: 'acme', roles: ['admin'] });
    expect((await t.request('GET', '/api/org/scim-tokens', { token })).status).toBe(200);
    const other = await idp.clientCredentialsToken(reporter);
    expect((await me(other)).body.roles).toEqual(['reporting']);
    expect((await t.request('GET', '/api/org/scim-tokens', { token: other })).status).toBe(403);
  });

  it('refuses a token of another audience or issuer', async () => {
    const token = await idp.clientCredentialsToken(deployer);
    const [h, p, s] = token.split('.');
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...payload, aud: 'other' })).toString('base64url')}.${s}`;
    expect((await me(forged)).status).toBe(401);
  });

  it('accepts a rotated-in key and refuses a removed key after the key-set refresh', async () => {
    const verifier = t.app.get(TokenVerifier);
    const old = await idp.clientCredentialsToken(deployer);
    expect((await me(old)).status).toBe(200);
    const oldKid = JSON.parse(Buffer.from(old.split('.')[0], 'base64url').toString()).kid as string;

    // The IdP publishes its next key, then signs with it.
    await idp.addKey({ sign: true });
    await verifier.refreshKeys();
    const fresh = await idp.clientCredentialsToken(deployer);
    expect(fresh.split('.')[0]).not.toBe(old.split('.')[0]);
    expect((await me(fresh)).status).toBe(200);
    expect((await me(old)).status).toBe(200);

    // The old key is withdrawn: once Warden refreshes, tokens it signed are refused, even one verified a moment ago.
    await idp.removeKey(oldKid);
    expect((await me(old)).status).toBe(200);
    await verifier.refreshKeys();
    const refused = await me(old);
    expect(refused.status).toBe(401);
    expect(refused.body.message).toMatch(/not signed by a key of the issuer/);
    expect((await me(fresh)).status).toBe(200);
  });
});
