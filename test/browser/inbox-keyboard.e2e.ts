import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expectAccessible } from '../support/axe.js';
import { apiToken, devSignIn, newPerson, screenshot, startConsole } from '../support/browser.js';
import type { ServerProcess } from '../support/server-process.js';

/**
 * Issue #32 acceptance 2: an approver decides from the keyboard alone — approve, reject, approve with changes, and
 * approve all of one model turn — against the built server with the demo agent's connector and gate (payments over
 * 50 000 need an org admin). The agent's first turn proposes three payments, its second two.
 */
let server: ServerProcess;
let browser: Browser;
let close: () => Promise<void>;
let member: { context: BrowserContext; page: Page };
let approver: { context: BrowserContext; page: Page };
const MEMBER = { sub: 'mia', org: 'demo', roles: [] };
const ADMIN = { sub: 'demo-admin', org: 'demo', roles: ['admin'] };

beforeAll(async () => {
  ({ server, browser, close } = await startConsole());
  [member, approver] = await Promise.all([newPerson(browser, server.url), newPerson(browser, server.url)]);
  for (const p of [member, approver]) p.context.setDefaultTimeout(20_000); // a loaded machine: waits, not timing asserts
  await Promise.all([devSignIn(member.page, MEMBER), devSignIn(approver.page, ADMIN)]);
}, 90_000);

afterAll(() => close?.());

const pay = (n: number) => ({ name: 'oa__purchase_pay', args: { id: `PO-400${n}`, amount: 70_000 + n } });

/** Waits until the focus is on the approval card of `po` (the focus moves on once a decision is recorded). */
// A CSS query, not waitForFunction: a string predicate is an eval in the page, which the console's CSP refuses.
const focusOn = (page: Page, po: string) =>
  page
    .locator(`[data-testid="pending-confirmation"][aria-label="Approval request oa__purchase_pay ${po}"]:focus-within`)
    .waitFor();

it('an approver approves, rejects, approves with changes and approves a whole turn with the keyboard only', async () => {
  const token = await apiToken(server.url, ADMIN);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const [demo] = (await (await fetch(`${server.url}/api/agents`, { headers })).json()) as any[];
  const script = [
    { tool_calls: [1, 2, 3].map(pay) },
    { tool_calls: [4, 5].map(pay) },
    { content: 'Five payment requests handled.' },
  ];
  const created = await fetch(`${server.url}/api/agents`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      name: 'keyboard-buyer',
      model_config_json: { ...demo.model_config_json, model: { provider: 'scripted', script } },
    }),
  });
  expect(created.status).toBe(201);

  const inbox = approver.page;
  await inbox.goto('/approvals');
  const chat = member.page;
  await chat.getByRole('link', { name: 'Portal' }).click();
  await chat.reload(); // the agent was created over the API after the Portal listed agents
  await chat.getByRole('link', { name: 'Chat with keyboard-buyer' }).click();
  await chat.getByLabel('Message').fill('Pay PO-4001 to PO-4005');
  await chat.getByRole('button', { name: 'Send' }).click();

  // Each card by its own call (the member's message, on every card, names all five).
  const cardOf = (po: string) =>
    inbox.getByRole('group', { name: `Approval request oa__purchase_pay ${po}`, exact: true });
  await cardOf('PO-4003').waitFor();
  await inbox.getByText(/Keyboard: J \/ K next \/ previous request/).waitFor();

  // J reaches the first request; A approves it and the focus moves on to the next one.
  await inbox.keyboard.press('j');
  await focusOn(inbox, 'PO-4001');
  await screenshot(inbox, 'approvals-keyboard-focused-card');
  await inbox.keyboard.press('a');
  await cardOf('PO-4001').waitFor({ state: 'detached' });
  await focusOn(inbox, 'PO-4002');

  // R rejects.
  await inbox.keyboard.press('r');
  await cardOf('PO-4002').waitFor({ state: 'detached' });
  await focusOn(inbox, 'PO-4003');

  // E opens the edit form with the focus in it; Tab to the amount, type, Ctrl+Enter approves with the change.
  await inbox.keyboard.press('e');
  const form = cardOf('PO-4003').getByLabel('Edited arguments');
  await form.waitFor();
  const amount = form.getByLabel('amount');
  const amountFocused = () =>
    amount.evaluate((el) => el === (el.ownerDocument as { activeElement: unknown }).activeElement);
  for (let i = 0; i < 5 && !(await amountFocused()); i++) await inbox.keyboard.press('Tab');
  expect(await amountFocused()).toBe(true);
  await inbox.keyboard.press('ControlOrMeta+a');
  await inbox.keyboard.type('60000');
  await expectAccessible(inbox, 'inbox, editing from the keyboard');
  await inbox.keyboard.press('Control+Enter');
  await cardOf('PO-4003').waitFor({ state: 'detached' });

  // The second turn: two calls, one group; J to its first card, Shift+A approves both.
  // Both cards drawn before J: CI once saw the focus never reach PO-4004 (a J pressed before it was drawn misses it).
  await cardOf('PO-4004').waitFor();
  await cardOf('PO-4005').waitFor();
  await inbox.keyboard.press('j');
  await focusOn(inbox, 'PO-4004');
  await inbox.keyboard.press('Shift+A');
  await inbox.getByTestId('inbox-empty').waitFor();
  await chat.getByTestId('answer').filter({ hasText: 'Five payment requests handled.' }).waitFor();

  // What the server recorded for each call.
  const rows = (await (await fetch(`${server.url}/api/confirmations`, { headers })).json()) as any[];
  const outcome = Object.fromEntries(
    rows.filter((r) => /^PO-400\d$/.test(r.args.id)).map((r) => [r.args.id, `${r.status} ${r.args.amount as number}`]),
  );
  expect(outcome).toEqual({
    'PO-4001': 'approved 70001',
    'PO-4002': 'rejected 70002',
    'PO-4003': 'approved 60000',
    'PO-4004': 'approved 70004',
    'PO-4005': 'approved 70005',
  });
}, 90_000);
