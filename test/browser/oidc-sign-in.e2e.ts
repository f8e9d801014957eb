import type { Browser } from 'playwright-core';
import { startFakeOidc, type FakeOidc } from '../fakes/fake-oidc.js';
import { launchBrowser, newPerson, screenshot } from '../support/browser.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { createTestDatabase } from '../support/test-database.js';

/** With AUTH_MODE=oidc the console signs in at the identity provider (authorization code + PKCE), never by a form. */
let idp: FakeOidc;
let server: ServerProcess;
let browser: Browser;
let drop: () => Promise<void>;

beforeAll(async () => {
  idp = await startFakeOidc({
    clientId: 'warden-console',
    audience: 'warden-api',
    user: { sub: 'olga', org: 'acme', roles: ['admin'], name: 'Olga' },
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
      APP_ENCRYPTION_KEY: 'oidc-encryption-key-0123456789',
    }),
    launchBrowser(),
  ]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await idp?.close();
  await drop?.();
});

it('signs in through the identity provider with PKCE; there is no dev sign-in form', async () => {
  const { page, context } = await newPerson(browser, server.url);
  await page.goto('/');
  expect(await page.getByRole('form', { name: 'Dev sign-in' }).count()).toBe(0);
  await page.getByRole('button', { name: 'Sign in with SSO' }).click();
  await page.getByTestId('whoami').filter({ hasText: 'olga · acme · admin' }).waitFor();
  expect(new URL(page.url()).pathname).toBe('/portal');

  const authorize = idp.requests.find((r) => r.path === '/authorize')!;
  expect(authorize.query.get('code_challenge_method')).toBe('S256');
  expect(authorize.query.get('redirect_uri')).toBe(`${server.url}/auth/callback`);
  const token = idp.requests.find((r) => r.path === '/token')!;
  expect(token.body.code_verifier).toMatch(/^[\w-]{43,128}$/);
  expect(idp.pkceFailures).toBe(0);
  await page.getByText('No agents yet').waitFor();
  await screenshot(page, 'oidc-signed-in');
  await context.close();
}, 30_000);
