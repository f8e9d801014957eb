import type { Browser } from 'playwright-core';
import { devSignIn, newPerson, startConsole } from '../support/browser.js';
import type { ServerProcess } from '../support/server-process.js';

/**
 * The bearer token never lands in localStorage (any tab, kept on disk). A dev session lives in the tab's
 * sessionStorage: a reload keeps it, a new tab or profile signs in again. (SSO: memory only, oidc-sign-in.e2e.ts.)
 */
let server: ServerProcess;
let browser: Browser;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ server, browser, close } = await startConsole());
}, 60_000);

afterAll(() => close?.());

it('after dev sign-in localStorage holds no token; the tab keeps its session over a reload, a new tab does not', async () => {
  const { context, page } = await newPerson(browser, server.url);
  await devSignIn(page, { sub: 'mia', org: 'demo', roles: [] });
  expect(await page.evaluate<string>('JSON.stringify({ ...localStorage })')).not.toMatch(/eyJ|token/);
  await page.reload();
  await page.getByTestId('whoami').filter({ hasText: 'mia' }).waitFor();
  const other = await context.newPage();
  await other.goto('/');
  await other.getByRole('form', { name: 'Dev sign-in' }).waitFor();
  await context.close();
}, 45_000);
