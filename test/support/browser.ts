import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { createTestDatabase } from './test-database.js';

/** Debian's chromium package (npm browser downloads do not work here; .ci/run installs it with apt-get). */
export const CHROMIUM = '/usr/bin/chromium';

/** Where browser tests leave their screenshots (git-ignored). */
export const TEST_OUTPUT = path.resolve(import.meta.dirname, '../../test-output/browser');

/**
 * Flags for a quiet, hermetic headless run: nothing phones home, nothing updates, no GPU. Playwright gives every
 * launch a fresh temporary --user-data-dir of its own (it refuses one passed as an argument), so runs share no state.
 */
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchBrowser(): Promise<Browser> {
  mkdirSync(TEST_OUTPUT, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS, timeout: 30_000 });
}

/**
 * The console runs under the server's Content-Security-Policy (#29): anything it blocks in any page of any person is
 * collected here, and the test during which it happened fails (an afterEach of every file importing this helper).
 */
const cspViolations: string[] = [];
const REPORT_VIOLATIONS = `document.addEventListener('securitypolicyviolation', (e) =>
  console.error('CSP violation: ' + e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + ' at ' + e.sourceFile + ':' + e.lineNumber));`;

function watchCsp(page: Page): void {
  page.on('console', (msg) => {
    if (/Content Security Policy|CSP violation/i.test(msg.text())) cspViolations.push(`${page.url()}: ${msg.text()}`);
  });
}

afterEach(() => {
  expect(cspViolations.splice(0)).toEqual([]);
});

/** A separate browser profile (cookies, storage) — one person at one laptop. */
export async function newPerson(
  browser: Browser,
  baseURL: string,
  viewport = { width: 1280, height: 860 },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL, viewport });
  context.setDefaultTimeout(10_000);
  await context.addInitScript(REPORT_VIOLATIONS);
  context.on('page', watchCsp);
  const page = await context.newPage();
  return { context, page };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  const file = path.join(TEST_OUTPUT, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** Signs in through the console's dev sign-in form. */
export async function devSignIn(page: Page, who: { sub: string; org: string; roles: string[] }): Promise<void> {
  await page.goto('/');
  const form = page.getByRole('form', { name: 'Dev sign-in' });
  await form.getByLabel('User (sub)').fill(who.sub);
  await form.getByLabel('Organisation').fill(who.org);
  const roles = form.getByLabel('Roles');
  await roles.click();
  // The form starts with the "admin" role; Backspace in the empty tags input removes the last tag.
  for (let i = 0; i < 3; i++) await roles.press('Backspace');
  for (const role of who.roles) {
    await roles.fill(role);
    await roles.press('Enter');
  }
  await form.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('whoami').filter({ hasText: who.sub }).waitFor();
}

/** The built server on a fresh database with the demo seed (as `npm start` has it), and a headless browser. */
export async function startConsole(
  env: Record<string, string> = {},
  opts: { timeoutMs?: number } = {},
): Promise<{ server: ServerProcess; browser: Browser; databaseUrl: string; close: () => Promise<void> }> {
  const db = await createTestDatabase();
  const [server, browser] = await Promise.all([
    startServerProcess(
      {
        DATABASE_URL: db.url,
        DB_SKIP_MIGRATIONS: '1',
        SEED_DEMO: 'true',
        NODE_ENV: 'development',
        AUTH_MODE: 'dev',
        AUTH_DEV_SECRET: 'browser-dev-secret-0123456789',
        APP_ENCRYPTION_KEY: 'browser-encryption-key-0123456789',
        CONFIRMATION_POLL_MS: '200',
        ...env,
      },
      // A loaded machine (parallel suites) can take more than the default 30 s to load the app.
      { timeoutMs: 60_000, ...opts },
    ),
    launchBrowser(),
  ]);
  return {
    server,
    browser,
    databaseUrl: db.url,
    async close() {
      await browser.close();
      await server.stop();
      await db.drop();
    },
  };
}

/** A dev token for API calls made by the test itself (setup, or checking what the console saved). */
export async function apiToken(baseUrl: string, who: { sub: string; org: string; roles: string[] }): Promise<string> {
  const res = await fetch(`${baseUrl}/api/dev/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(who),
  });
  return ((await res.json()) as { token: string }).token;
}

/**
 * Visible form controls and buttons a screen reader could not name (no label, aria-label, aria-labelledby, title or
 * text). Returns a short description of each, so a failing assertion says which. Controls hidden from assistive
 * technology on purpose (`aria-hidden`, e.g. Mantine's number steppers and pill remove crosses, both out of the Tab
 * order: the arrow keys and Backspace do their job) are not in the accessibility tree, so need no name.
 */
export async function unnamedControls(page: Page): Promise<string[]> {
  // A string, evaluated in the page: the test project has no DOM types.
  return page.evaluate<string[]>(`(() => {
    const named = (el) => {
      if (el.getAttribute('aria-label')?.trim() || el.getAttribute('title')?.trim()) return true;
      const by = el.getAttribute('aria-labelledby');
      if (by && by.split(/\\s+/).some((id) => document.getElementById(id)?.textContent?.trim())) return true;
      if (el.labels && [...el.labels].some((l) => l.textContent?.trim())) return true;
      return el.tagName === 'BUTTON' || el.tagName === 'A' ? !!el.textContent?.trim() : false;
    };
    const visible = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden'; };
    return [...document.querySelectorAll('input:not([type=hidden]), textarea, select, button, a[href], [role=switch], [role=tab]')]
      .filter((el) => visible(el) && !el.closest('[aria-hidden="true"]') && !named(el))
      .map((el) => el.outerHTML.slice(0, 160));
  })()`);
}

/** True when the page scrolls sideways (something is wider than a phone's viewport). */
export async function overflowsSideways(page: Page): Promise<boolean> {
  return page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth + 1');
}
