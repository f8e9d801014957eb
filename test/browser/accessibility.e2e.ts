import type { Browser, Page } from 'playwright-core';
import { a11yReport } from '../support/axe.js';
import { devSignIn, newPerson, screenshot, startConsole } from '../support/browser.js';
import type { ServerProcess } from '../support/server-process.js';

/**
 * axe-core (WCAG 2.x A/AA) on every screen of the console, as each person sees it: sign-in, the Portal (agents, a chat
 * waiting at the gate), the inbox (pending, decided), workflows, every admin page, and the phone layout. Each page
 * has one h1 and a skip link to its main content; on a phone every button and input is a 44 px touch target.
 */
let server: ServerProcess;
let browser: Browser;
let close: () => Promise<void>;
const MEMBER = { sub: 'mia', org: 'demo', roles: [] };
const ADMIN = { sub: 'demo-admin', org: 'demo', roles: ['admin'] };
const ADMIN_PAGES = ['agents', 'connectors', 'channels', 'mcp-servers', 'llm-credentials', 'hooks', 'audit', 'org'];

beforeAll(async () => {
  ({ server, browser, close } = await startConsole());
}, 60_000);

afterAll(() => close?.());

/** The page's headings of level 1 (a page has exactly one, naming it). */
const h1s = (page: Page) => page.locator('h1').allInnerTexts();

/** What a checked page lacks: axe findings, exactly one h1, a skip link that Tab reaches first. */
async function pageProblems(page: Page, state: string): Promise<string[]> {
  const problems = await a11yReport(page, state);
  const headings = await h1s(page);
  if (headings.length !== 1) problems.push(`${state}: ${headings.length} h1 (${headings.join(' | ')})`);
  await page.evaluate('document.activeElement?.blur()');
  await page.keyboard.press('Tab');
  const first = await page.evaluate<string>('document.activeElement?.textContent ?? ""');
  if (first !== 'Skip to content') problems.push(`${state}: the first Tab reaches "${first}", not "Skip to content"`);
  return problems;
}

async function sendPayments(page: Page): Promise<void> {
  await page.getByLabel('Message').fill('Pay the open purchase orders');
  await page.getByRole('button', { name: 'Send' }).click();
  await page
    .getByTestId('tool-call')
    .filter({ hasText: 'PO-1002' })
    .getByText(/Waiting for approval/)
    .waitFor();
}

it('sign-in, the Portal, a waiting chat and the inbox have no serious or critical violations', async () => {
  const member = await newPerson(browser, server.url);
  await member.page.goto('/');
  await member.page.getByRole('form', { name: 'Dev sign-in' }).waitFor();
  const problems = await a11yReport(member.page, 'sign-in');
  if ((await h1s(member.page)).join() !== 'Sign in to Warden') problems.push('sign-in: no h1 "Sign in to Warden"');

  await devSignIn(member.page, MEMBER);
  await member.page.getByRole('link', { name: 'Chat with demo-buyer' }).waitFor();
  problems.push(...(await pageProblems(member.page, 'portal')));
  await member.page.getByRole('link', { name: 'Chat with demo-buyer' }).click();
  await member.page.getByTestId('history-empty').waitFor();
  problems.push(...(await pageProblems(member.page, 'chat-empty')));
  await sendPayments(member.page);
  await member.page.getByTestId('tool-call').filter({ hasText: 'PO-1001' }).getByTestId('observation').waitFor();
  problems.push(...(await pageProblems(member.page, 'chat-waiting')));

  const admin = await newPerson(browser, server.url);
  await devSignIn(admin.page, ADMIN);
  await admin.page.goto('/approvals');
  await admin.page.getByTestId('pending-confirmation').first().waitFor();
  problems.push(...(await pageProblems(admin.page, 'inbox-pending')));
  await admin.page.getByRole('tab', { name: 'Decided' }).click();
  problems.push(...(await pageProblems(admin.page, 'inbox-decided')));
  await screenshot(admin.page, 'a11y-inbox');
  expect(problems).toEqual([]);
  await Promise.all([member.context.close(), admin.context.close()]);
}, 90_000);

it('workflows and every admin page have no serious or critical violations', async () => {
  const admin = await newPerson(browser, server.url);
  await devSignIn(admin.page, ADMIN);
  const problems: string[] = [];
  // A page is checked once it is there: its h1 shown (its code and data loaded), no loader left.
  const open = async (path: string) => {
    await admin.page.goto(path);
    await admin.page.getByRole('main').getByRole('heading', { level: 1 }).first().waitFor();
    await admin.page
      .getByRole('progressbar')
      .or(admin.page.getByText('Loading'))
      .first()
      .waitFor({ state: 'detached' });
  };
  await open('/workflows');
  problems.push(...(await pageProblems(admin.page, 'workflows')));
  for (const name of ADMIN_PAGES) {
    await open(`/admin/${name}`);
    problems.push(...(await pageProblems(admin.page, `admin-${name}`)));
  }
  await open('/admin/agents/demo-buyer');
  problems.push(...(await pageProblems(admin.page, 'admin-agent-editor')));
  expect(problems).toEqual([]);
  await admin.context.close();
}, 120_000); // axe-core on eleven pages: about 5 s each on a loaded machine

/** Visible buttons, inputs and navigation links smaller than a 44 px touch target (a short description of each). */
async function smallTargets(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const sel = 'button, [role=button], [role=tab], input:not([type=hidden]):not([type=checkbox]):not([type=radio]), nav a[href], textarea';
    return [...document.querySelectorAll(sel)]
      .filter((el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden'; })
      .filter((el) => { const r = el.getBoundingClientRect(); return r.height < 44 - 0.5 || r.width < 44 - 0.5; })
      .map((el) => { const r = el.getBoundingClientRect(); return Math.round(r.width) + 'x' + Math.round(r.height) + ' ' + el.outerHTML.slice(0, 120); });
  })()`);
}

it('on a phone the Portal, the open navigation and the inbox are accessible with 44 px touch targets', async () => {
  const phone = await newPerson(browser, server.url, { width: 390, height: 800 });
  await phone.page.goto('/');
  await phone.page.getByRole('form', { name: 'Dev sign-in' }).waitFor();
  const problems = await smallTargets(phone.page);
  await devSignIn(phone.page, ADMIN);
  await phone.page.getByRole('link', { name: 'Chat with demo-buyer' }).waitFor();
  problems.push(...(await pageProblems(phone.page, 'phone-portal')));
  problems.push(...(await smallTargets(phone.page)));
  await phone.page.getByRole('button', { name: 'Toggle navigation' }).click();
  await phone.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Approvals' }).waitFor();
  problems.push(...(await a11yReport(phone.page, 'phone-navigation')), ...(await smallTargets(phone.page)));
  await phone.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Approvals' }).click();
  await phone.page.getByTestId('pending-confirmation').first().waitFor();
  problems.push(...(await pageProblems(phone.page, 'phone-inbox')));
  problems.push(...(await smallTargets(phone.page)));
  await screenshot(phone.page, 'a11y-phone-inbox');
  expect(problems).toEqual([]);
  await phone.context.close();
}, 90_000);
