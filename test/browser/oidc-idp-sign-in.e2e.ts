import type { Browser, Page } from 'playwright-core';
import { startOidcIdp, type OidcIdp } from '../fakes/oidc-idp.js';
import { launchBrowser, newPerson, screenshot } from '../support/browser.js';
import { until } from '../support/eventually.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { createTestDatabase } from '../support/test-database.js';

/**
 * With AUTH_MODE=oidc the console signs in at a certified OpenID Provider (oidc-provider: its own login page,
 * authorization code + PKCE), never by a form of Warden's; the IdP's `tenant` and `groups` claims are the org and
 * roles (AUTH_ORG_CLAIM, AUTH_ROLES_CLAIM); signing out ends the session at the IdP too (RP-initiated logout).
 * The IdP's access tokens live 8 s here, so that the console's renewal (refresh token, rotated) happens under test.
 */
const TOKEN_TTL_S = 8;
let idp: OidcIdp;
let server: ServerProcess;
let browser: Browser;
let drop: () => Promise<void>;

beforeAll(async () => {
  idp = await startOidcIdp({
    consoleClientId: 'warden-console',
    audience: 'warden-api',
    accounts: [
      { sub: 'olga', org: 'demo', groups: ['admin'], name: 'Olga', email: 'olga@demo.test' },
      { sub: 'mia', org: 'demo', groups: ['purchasing'], name: 'Mia', email: 'mia@demo.test' },
    ],
    claims: { org: 'tenant', roles: 'groups' },
    accessTokenTtlS: TOKEN_TTL_S,
  });
  const db = await createTestDatabase();
  drop = db.drop;
  [server, browser] = await Promise.all([
    startServerProcess(
      {
        DATABASE_URL: db.url,
        DB_SKIP_MIGRATIONS: '1',
        // The demo org: its agent pays PO-1002 (68 000) only once an org admin approves.
        SEED_DEMO: 'true',
        NODE_ENV: 'development',
        AUTH_MODE: 'oidc',
        OIDC_ISSUER: idp.url,
        OIDC_AUDIENCE: 'warden-api',
        OIDC_CLIENT_ID: 'warden-console',
        // The API's scope, as Entra ID needs it to issue a token for Warden (here the default resource's scope).
        OIDC_SCOPES: 'api',
        AUTH_ORG_CLAIM: 'tenant',
        AUTH_ROLES_CLAIM: 'groups',
        APP_ENCRYPTION_KEY: 'oidc-encryption-key-0123456789',
        CONFIRMATION_POLL_MS: '200',
      },
      { timeoutMs: 60_000 },
    ),
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

/** Through the console's "Sign in with SSO" and the provider's own login page. */
async function signInAtIdp(page: Page, login: string): Promise<void> {
  await page.goto('/');
  expect(await page.getByRole('form', { name: 'Dev sign-in' }).count()).toBe(0);
  await page.getByRole('button', { name: 'Sign in with SSO' }).click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any');
  await page.locator('button[type="submit"]').click();
}

/** Nothing token-like in the origin's web storage: the token lives in memory only. */
async function webStorage(page: Page): Promise<string> {
  return page.evaluate<string>('JSON.stringify([{ ...localStorage }, { ...sessionStorage }])');
}
const TOKEN_LIKE = /access_token|refresh_token|id_token|eyJ[\w-]+\.[\w-]+/;

const expOf = (jwt: string) =>
  (JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()) as { exp: number }).exp;

it('signs in at the IdP with PKCE, maps its claims to roles, and signs out there too', async () => {
  const member = await newPerson(browser, server.url);
  await signInAtIdp(member.page, 'mia');
  await member.page.getByTestId('whoami').filter({ hasText: 'mia · demo' }).waitFor();
  expect(new URL(member.page.url()).pathname).toBe('/portal');
  const authorize = idp.requests.find((r) => r.path === '/auth')!;
  expect(authorize.query.get('code_challenge_method')).toBe('S256');
  expect(authorize.query.get('redirect_uri')).toBe(`${server.url}/auth/callback`);
  expect(authorize.query.get('scope')).toBe('openid profile email api');
  expect(idp.grants).toContain('authorization_code');
  // A member (groups: purchasing): no admin screens.
  expect(await member.page.getByTestId('whoami').innerText()).not.toContain('admin');
  const nav = member.page.getByRole('navigation', { name: 'Main' });
  expect(await nav.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
  // (A typed address loads the page anew: the console signs in again silently at the IdP, then shows it.)
  await member.page.goto('/admin/agents');
  await member.page.getByText('Only admins of the organisation see this page').waitFor();
  // The member asks for PO-1002 (68 000): it waits for an org admin.
  await nav.getByRole('link', { name: 'Portal' }).click();
  await member.page.getByRole('link', { name: 'Chat with demo-buyer' }).click();
  await member.page.getByLabel('Message').fill('Pay the open purchase orders');
  await member.page.getByRole('button', { name: 'Send' }).click();
  await member.page
    .getByTestId('tool-call')
    .filter({ hasText: 'PO-1002' })
    .getByText(/Waiting for approval/)
    .waitFor();

  // An approver (groups: admin) finds it in the inbox and approves it.
  const approver = await newPerson(browser, server.url);
  await signInAtIdp(approver.page, 'olga');
  await approver.page.getByTestId('whoami').filter({ hasText: 'olga · demo · admin' }).waitFor();
  await approver.page.getByRole('link', { name: /^Approvals/ }).click();
  const card = approver.page.getByTestId('pending-confirmation').filter({ hasText: 'PO-1002' });
  await card.waitFor();
  await screenshot(approver.page, 'oidc-approver-inbox');
  await card.getByRole('button', { name: 'Approve', exact: true }).click();
  await member.page
    .getByTestId('tool-call')
    .filter({ hasText: 'PO-1002' })
    .getByText(/Approval approved/)
    .first()
    .waitFor();
  expect(await webStorage(approver.page)).not.toMatch(TOKEN_LIKE);

  // RP-initiated logout: the provider asks, then sends the browser back to the console's sign-in page.
  await approver.page.getByRole('button', { name: 'Sign out' }).click();
  await approver.page.locator('button[autofocus], button[name="logout"]').first().click();
  await approver.page.getByRole('button', { name: 'Sign in with SSO' }).waitFor();
  expect(idp.requests.some((r) => r.path === '/session/end')).toBe(true);
  // The IdP session is gone: signing in again asks for the login again.
  await approver.page.getByRole('button', { name: 'Sign in with SSO' }).click();
  await approver.page.locator('input[name="login"]').waitFor();
  await Promise.all([member.context.close(), approver.context.close()]);
}, 120_000);

it('renews the token in memory before it expires, without the person noticing; a reload signs in again silently', async () => {
  const { page, context } = await newPerson(browser, server.url);
  const bearers: string[] = [];
  page.on('request', (r) => {
    const auth = r.headers().authorization;
    if (auth?.startsWith('Bearer ') && new URL(r.url()).pathname.startsWith('/api/')) bearers.push(auth.slice(7));
  });
  await signInAtIdp(page, 'mia');
  await page.getByTestId('whoami').filter({ hasText: 'mia · demo' }).waitFor();
  const first = bearers[0];
  const renewalsBefore = idp.grants.filter((g) => g === 'refresh_token').length;
  const signInsBefore = idp.requests.filter((r) => r.path === '/auth').length;

  // The first token runs out; the console renewed it meanwhile with the refresh token (no redirect, no prompt),
  // twice: each renewal presents the refresh token the previous one returned (the IdP rotates them).
  await until(
    'the first token to expire after two renewals',
    () =>
      Date.now() > (expOf(first) + 1) * 1000 &&
      idp.grants.filter((g) => g === 'refresh_token').length >= renewalsBefore + 2,
    (2 * TOKEN_TTL_S + 10) * 1000,
    200,
  );
  expect(new Set(idp.refreshTokensPresented).size).toBe(idp.refreshTokensPresented.length);
  expect(await webStorage(page)).not.toMatch(TOKEN_LIKE);
  // She keeps working: the Portal, a chat whose payment waits for approval — with a renewed token.
  const sent = bearers.length;
  await page.getByRole('link', { name: 'Portal' }).click();
  await page.getByRole('link', { name: 'Chat with demo-buyer' }).click();
  await page.getByLabel('Message').fill('Pay the open purchase orders');
  await page.getByRole('button', { name: 'Send' }).click();
  await page
    .getByTestId('tool-call')
    .filter({ hasText: 'PO-1002' })
    .getByText(/Waiting for approval/)
    .waitFor();
  const since = bearers.slice(sent);
  expect(since.length).toBeGreaterThan(0);
  expect(since.every((t) => t !== first && expOf(t) > expOf(first))).toBe(true);
  expect(idp.requests.filter((r) => r.path === '/auth').length).toBe(signInsBefore);
  expect(await page.getByRole('button', { name: 'Sign in with SSO' }).count()).toBe(0);

  // A reload forgets the token; the console goes back to the IdP with prompt=none and its session answers at once:
  // no login page, back on the same screen.
  await page.getByRole('link', { name: /^Approvals/ }).click();
  await page.getByRole('heading', { name: 'Approvals' }).waitFor();
  const mark = idp.requests.length;
  await page.reload();
  await page.getByTestId('whoami').filter({ hasText: 'mia · demo' }).waitFor();
  expect(new URL(page.url()).pathname).toBe('/approvals');
  const after = idp.requests.slice(mark);
  expect(after.filter((r) => r.path === '/auth').map((r) => r.query.get('prompt'))).toEqual(['none']);
  expect(after.filter((r) => r.path.startsWith('/interaction/'))).toEqual([]);
  expect(await webStorage(page)).not.toMatch(TOKEN_LIKE);
  await context.close();
}, 120_000);
