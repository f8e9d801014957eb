import type { Browser, Page } from 'playwright-core';
import { devSignIn, newPerson, screenshot, startConsole } from '../support/browser.js';
import type { ServerProcess } from '../support/server-process.js';

/**
 * The console in a real browser against the built server (`dist/`) on a real database, with the demo agent of
 * `npm start`: a member chats, PO-1001 is paid at once and PO-1002 stops at the gate; an admin in another browser
 * profile sees it arrive in the inbox without reloading and approves; the member's chat resumes.
 */
let server: ServerProcess;
let browser: Browser;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ server, browser, close } = await startConsole());
}, 60_000);

afterAll(() => close?.());

const card = (page: Page, po: string) => page.getByTestId('tool-call').filter({ hasText: po });

it('a member chats, PO-1002 waits at the gate, an admin approves it live from the inbox and the chat resumes', async () => {
  const member = await newPerson(browser, server.url);
  const approver = await newPerson(browser, server.url);
  await devSignIn(member.page, { sub: 'mia', org: 'demo', roles: [] });
  await devSignIn(approver.page, { sub: 'demo-admin', org: 'demo', roles: ['admin'] });
  await approver.page.getByRole('link', { name: 'Approvals' }).click();
  await approver.page.getByTestId('inbox-empty').waitFor();

  const chat = member.page;
  await chat.getByRole('link', { name: 'Chat with demo-buyer' }).click();
  await chat.getByLabel('Message').fill('Pay the open purchase orders');
  await chat.getByRole('button', { name: 'Send' }).click();

  // PO-1001 (1 200) ran at once; PO-1002 (68 000) waits for an org admin, with a live countdown.
  await card(chat, 'PO-1001').getByTestId('observation').waitFor();
  await card(chat, 'PO-1001').getByText('allowed').first().waitFor();
  const waiting = card(chat, 'PO-1002').getByRole('status');
  await waiting.filter({ hasText: /Waiting for approval by an org admin, expires in \d+:\d\d/ }).waitFor();
  await screenshot(chat, 'portal-waiting-for-approval');

  // Reload mid-run: the same run comes back (what was stored, then the rest after Last-Event-ID), nothing twice.
  await chat.reload();
  await card(chat, 'PO-1002').getByRole('status').filter({ hasText: /Waiting for approval/ }).waitFor();
  await card(chat, 'PO-1001').getByTestId('observation').waitFor();
  expect(await chat.getByTestId('tool-call').count()).toBe(2);

  // The approver's inbox shows it without a reload: agent, requester, tool and the args, amount first.
  const request = approver.page.getByTestId('pending-confirmation').filter({ hasText: 'PO-1002' });
  await request.waitFor();
  await request.getByText('demo-buyer').waitFor();
  const argRows = await request.getByRole('table', { name: 'Arguments' }).locator('tr').allInnerTexts();
  expect(argRows[0]).toMatch(/amount\s+68000/);
  await screenshot(approver.page, 'approvals-inbox');
  await request.getByLabel('Reason (optional)').fill('budget line 7 confirmed');
  // Approve with changes: the approver lowers the amount in the edit form; the call runs with exactly that.
  await request.getByRole('button', { name: 'Edit arguments' }).click();
  const editor = request.getByRole('textbox', { name: 'Edited arguments' });
  await editor.fill(JSON.stringify({ ...JSON.parse(await editor.inputValue()), amount: 60000 }));
  await request.getByRole('button', { name: 'Approve with changes' }).click();
  await approver.page.getByTestId('inbox-empty').waitFor();

  // The member's chat resumes: approved, PO-1002 paid, the final answer, the run completed.
  await card(chat, 'PO-1002').getByText(/Approval approved/).waitFor();
  await card(chat, 'PO-1002').getByTestId('observation').waitFor();
  expect(await card(chat, 'PO-1002').getByTestId('observation').innerText()).toMatch(/PO-1002/);
  expect(await card(chat, 'PO-1002').getByTestId('observation').innerText()).toMatch(/approved this call with changes \(amount: 68000 -> 60000\)/);
  await chat.getByTestId('answer').filter({ hasText: 'Both payment requests are handled' }).waitFor();
  await chat.locator('[data-testid="turn"][data-status="completed"]').waitFor();
  await screenshot(chat, 'portal-resumed');

  // The decision is in the history with who and why.
  await approver.page.getByRole('tab', { name: 'Decided' }).click();
  const decided = approver.page.getByRole('table', { name: 'Decided requests' });
  await decided.getByText('budget line 7 confirmed').waitFor();
  expect(await decided.innerText()).toMatch(/approved/i);
  expect(await decided.innerText()).toMatch(/approved with changes; proposed \{[^}]*"amount":68000/);
  await member.context.close();
  await approver.context.close();
}, 60_000);
