import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import {
  apiToken,
  devSignIn,
  newPerson,
  overflowsSideways,
  screenshot,
  startConsole,
  unnamedControls,
} from '../support/browser.js';
import type { ServerProcess } from '../support/server-process.js';

/**
 * The console in a real browser against the built server (`dist/`) on a real database, with the demo agent of
 * `npm start`: a member chats, PO-1001 is paid at once and PO-1002 stops at the gate; an admin in another browser
 * profile sees it arrive in the inbox without reloading and approves (or rejects); the member's chat resumes. One
 * server and one browser for the whole file; each test continues from the state the previous one left.
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
  await Promise.all([devSignIn(member.page, MEMBER), devSignIn(approver.page, ADMIN)]);
}, 60_000);

afterAll(() => close?.());

const card = (scope: Page | Locator, po: string) => scope.getByTestId('tool-call').filter({ hasText: po });
const pendingRequest = (page: Page, po: string) => page.getByTestId('pending-confirmation').filter({ hasText: po });

async function startPayments(chat: Page): Promise<Locator> {
  await chat.getByLabel('Message').fill('Pay the open purchase orders');
  await chat.getByRole('button', { name: 'Send' }).click();
  const turn = chat.getByTestId('turn').last();
  await card(turn, 'PO-1002')
    .getByRole('status')
    .filter({ hasText: /Waiting for approval by an org admin, expires in \d+:\d\d/ })
    .waitFor();
  return turn;
}

it('a member chats, PO-1002 waits at the gate, an admin approves it live from the inbox and the chat resumes', async () => {
  await approver.page.getByRole('link', { name: 'Approvals' }).click();
  await approver.page.getByTestId('inbox-empty').waitFor();

  const chat = member.page;
  await chat.getByRole('link', { name: 'Chat with demo-buyer' }).click();
  await chat.getByTestId('history-empty').waitFor();
  await startPayments(chat);
  // PO-1001 (1 200) ran at once; PO-1002 (68 000) waits for an org admin, with a live countdown.
  await card(chat, 'PO-1001').getByTestId('observation').waitFor();
  await card(chat, 'PO-1001').getByText('allowed').first().waitFor();
  await screenshot(chat, 'portal-waiting-for-approval');

  // Reload mid-run: the same run comes back (what was stored, then the rest after Last-Event-ID), nothing twice.
  await chat.reload();
  await card(chat, 'PO-1002')
    .getByRole('status')
    .filter({ hasText: /Waiting for approval/ })
    .waitFor();
  await card(chat, 'PO-1001').getByTestId('observation').waitFor();
  expect(await chat.getByTestId('tool-call').count()).toBe(2);

  // The approver's inbox shows it without a reload: agent, requester, tool and the args, amount first.
  const request = pendingRequest(approver.page, 'PO-1002');
  await request.waitFor();
  await request.getByText('demo-buyer').waitFor();
  const argRows = await request.getByRole('table', { name: 'Arguments' }).locator('tr').allInnerTexts();
  expect(argRows[0]).toMatch(/amount\s+68,000/); // formatted, the decisive field first
  await request.getByText(/^expires in \d+:\d\d$/).waitFor(); // how long is left, not a clock time
  await request.getByRole('link', { name: 'open the run' }).waitFor();
  // Why a person is asked (the rule that fired) and the member's own words.
  expect(await request.getByTestId('approval-trigger').innerText()).toMatch(/args\.amount > 50000/);
  expect(await request.getByTestId('member-message').innerText()).toBe('Pay the open purchase orders');
  await screenshot(approver.page, 'approvals-inbox');
  await request.getByLabel('Reason (optional)').fill('budget line 7 confirmed');
  // Approve with changes: the approver lowers the amount in the edit form; the call runs with exactly that.
  await request.getByRole('button', { name: 'Edit arguments' }).click();
  // A form from the action's parameter schema, not JSON: a bad value is named at the field and blocks approving.
  const form = request.getByLabel('Edited arguments');
  await form.getByLabel('amount').fill('');
  await form.getByText('Required').waitFor();
  expect(await request.getByRole('button', { name: 'Approve with changes' }).isDisabled()).toBe(true);
  await form.getByLabel('amount').fill('60000');
  await request.getByRole('button', { name: 'Approve with changes' }).click();
  await approver.page.getByTestId('inbox-empty').waitFor();

  // The member's chat resumes: approved, PO-1002 paid, the final answer, the run completed.
  await card(chat, 'PO-1002')
    .getByText(/Approval approved/)
    .waitFor();
  await card(chat, 'PO-1002').getByTestId('observation').waitFor();
  expect(await card(chat, 'PO-1002').getByTestId('observation').innerText()).toMatch(/PO-1002/);
  expect(await card(chat, 'PO-1002').getByTestId('observation').innerText()).toMatch(
    /approved this call with changes \(amount: 68000 -> 60000\)/,
  );
  // The card shows the args that ran (the approver's 60 000), and what the model had proposed.
  expect(await card(chat, 'PO-1002').getByLabel('Arguments').innerText()).toMatch(/"amount": 60000/);
  expect(await card(chat, 'PO-1002').getByTestId('proposed-args').innerText()).toMatch(/"amount":68000/);
  await chat.getByTestId('answer').filter({ hasText: 'Both payment requests are handled' }).waitFor();
  await chat.locator('[data-testid="turn"][data-status="completed"]').waitFor();
  await screenshot(chat, 'portal-resumed');

  // The decision is in the history with who and why.
  await approver.page.getByRole('tab', { name: 'Decided' }).click();
  const decided = approver.page.getByRole('table', { name: 'Decided requests' });
  await decided.getByText('budget line 7 confirmed').waitFor();
  expect(await decided.innerText()).toMatch(/approved/i);
  expect(await decided.innerText()).toMatch(/approved with changes; proposed \{[^}]*"amount":68000/);
  await approver.page.getByRole('tab', { name: /Pending for me/ }).click();
}, 60_000);

it('in a new session the member reopens the conversation from the history, continues it, and a rejection with a reason reaches the chat', async () => {
  const elsewhere = await newPerson(browser, server.url); // another browser profile: nothing kept locally
  await devSignIn(elsewhere.page, MEMBER);
  const chat = elsewhere.page;
  await chat.getByRole('link', { name: 'Chat with demo-buyer' }).click();
  const history = chat.getByRole('navigation', { name: 'Past conversations' });
  await history.getByRole('link', { name: /Pay the open purchase orders/ }).click();
  await chat.getByTestId('answer').filter({ hasText: 'Both payment requests are handled' }).waitFor();
  expect(await chat.getByTestId('tool-call').count()).toBe(2);
  await card(chat, 'PO-1002')
    .getByText(/Approval approved/)
    .waitFor();
  await screenshot(chat, 'portal-history-reopened');

  // Continue it: the next message joins the same conversation (one entry in the history, two messages).
  const turn = await startPayments(chat);
  await history.getByText(/2 messages/).waitFor();
  expect(await history.getByRole('link').count()).toBe(1);

  const request = pendingRequest(approver.page, 'PO-1002');
  await request.getByLabel('Reason (optional)').fill('over budget this quarter');
  await request.getByRole('button', { name: 'Reject' }).click();
  await approver.page.getByTestId('inbox-empty').waitFor();
  await card(turn, 'PO-1002')
    .getByText(/Approval rejected/)
    .waitFor();
  await card(turn, 'PO-1002')
    .getByText(/blocked/)
    .first()
    .waitFor();
  await chat.locator('[data-testid="turn"][data-status="completed"]').nth(1).waitFor();
  await screenshot(chat, 'portal-rejected');

  await approver.page.getByRole('tab', { name: 'Decided' }).click();
  const rejected = approver.page
    .getByRole('table', { name: 'Decided requests' })
    .getByRole('row')
    .filter({ hasText: 'over budget this quarter' });
  expect(await rejected.innerText()).toMatch(/rejected/i);
  await approver.page.getByRole('tab', { name: /Pending for me/ }).click();
  await elsewhere.context.close();
}, 60_000);

it('a member cannot approve what only admins may (the toast says whom to ask); cancelling the run withdraws the request from the inbox live', async () => {
  const chat = member.page;
  await chat.getByRole('link', { name: 'New conversation' }).click();
  await chat.getByTestId('chat-empty').waitFor();
  const turn = await startPayments(chat);
  await pendingRequest(approver.page, 'PO-1002').waitFor();

  // The member's own inbox: nothing for her; shown anyway, an approval is refused with what to do. A new tab holds
  // no session (a dev session lives in its own tab's sessionStorage, token-storage.e2e.ts): she signs in there again.
  const inbox = await member.context.newPage();
  await devSignIn(inbox, MEMBER);
  await inbox.goto('/approvals');
  await inbox.getByTestId('inbox-empty').waitFor();
  await inbox.getByLabel('Also show requests others decide').check();
  await pendingRequest(inbox, 'PO-1002').getByRole('button', { name: 'Approve' }).click();
  const toast = inbox.getByRole('alert').filter({ hasText: 'The decision was not recorded' });
  await toast
    .filter({ hasText: /only organisation admins may decide this request.*Ask an admin of your organisation/ })
    .waitFor();
  await screenshot(inbox, 'approvals-refused-toast');
  await inbox.close();

  await turn.getByRole('button', { name: 'Cancel run' }).click();
  await chat.locator('[data-testid="turn"][data-status="cancelled"]').waitFor();
  await turn.getByText('Run cancelled').waitFor();
  // The card's wait ended with the run: no "waiting … expires in" left ticking.
  await card(turn, 'PO-1002').getByText('No longer waiting: the run was cancelled').waitFor();
  expect(
    await card(turn, 'PO-1002')
      .getByText(/Waiting for approval/)
      .count(),
  ).toBe(0);
  await approver.page.getByTestId('inbox-empty').waitFor();
  await screenshot(chat, 'portal-cancelled');
}, 45_000);

it('on a phone the Portal chat and the inbox fit the screen, every control has a name, and approving works from the keyboard', async () => {
  const phone = { width: 390, height: 800 };
  const [phoneMember, phoneApprover] = await Promise.all([
    newPerson(browser, server.url, phone),
    newPerson(browser, server.url, phone),
  ]);
  await Promise.all([devSignIn(phoneMember.page, MEMBER), devSignIn(phoneApprover.page, ADMIN)]);
  const chat = phoneMember.page;
  await chat.getByRole('link', { name: 'Chat with demo-buyer' }).click();
  await chat.getByRole('navigation', { name: 'Past conversations' }).getByRole('link').first().waitFor();
  await startPayments(chat);
  expect(await unnamedControls(chat)).toEqual([]);
  expect(await overflowsSideways(chat)).toBe(false);
  await screenshot(chat, 'phone-portal-waiting');

  const inbox = phoneApprover.page;
  await inbox.getByRole('button', { name: 'Toggle navigation' }).click();
  await inbox.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Approvals' }).click();
  const request = pendingRequest(inbox, 'PO-1002');
  await request.waitFor();
  expect(await unnamedControls(inbox)).toEqual([]);
  expect(await overflowsSideways(inbox)).toBe(false);
  await screenshot(inbox, 'phone-approvals-inbox');
  await request.getByLabel('Reason (optional)').focus();
  await inbox.keyboard.type('ok from my phone');
  // Keyboard only: Tab past the card's other controls (the standing-approval switch) to Approve, then Enter.
  const focused = () => inbox.evaluate<string>(`document.activeElement?.textContent ?? ''`);
  for (let i = 0; i < 6 && (await focused()) !== 'Approve'; i++) await inbox.keyboard.press('Tab');
  expect(await focused()).toBe('Approve');
  await inbox.keyboard.press('Enter');
  await inbox.getByTestId('inbox-empty').waitFor();

  await chat.getByTestId('answer').last().filter({ hasText: 'Both payment requests are handled' }).waitFor();
  expect(await overflowsSideways(chat)).toBe(false);
  await phoneMember.context.close();
  await phoneApprover.context.close();
}, 60_000); // two more browser profiles signing in

it('under a four-eyes policy that forbids self-approval the requester reads who may decide, with the count, and not "you"', async () => {
  const token = await apiToken(server.url, ADMIN);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const [demo] = (await (await fetch(`${server.url}/api/agents`, { headers })).json()) as any[];
  const confirmation = {
    approvers: ['org_members'],
    forbid_self_approval: true,
    tiers: [{ when: 'args.amount > 50000', approvals: 2 }],
  };
  const created = await fetch(`${server.url}/api/agents`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'four-eyes-buyer', model_config_json: { ...demo.model_config_json, confirmation } }),
  });
  expect(created.status).toBe(201);

  const chat = member.page;
  await chat.getByRole('link', { name: 'Portal' }).click();
  await chat.getByRole('link', { name: 'Chat with four-eyes-buyer' }).click();
  await chat.getByLabel('Message').fill('Pay the open purchase orders');
  await chat.getByRole('button', { name: 'Send' }).click();
  const waiting = card(chat.getByTestId('turn').last(), 'PO-1002').getByRole('status');
  await waiting.filter({ hasText: 'Waiting for 2 approvals by any member other than you (0 of 2 given)' }).waitFor();
  expect(await waiting.innerText()).not.toMatch(/you \(the requester\)/);
  await screenshot(chat, 'portal-four-eyes-waiting');
  await chat.getByTestId('turn').last().getByRole('button', { name: 'Cancel run' }).click();
}, 45_000);

it('a link to a decided request says what became of it; with the server unreachable the inbox says so instead of "nothing waiting"', async () => {
  const token = await apiToken(server.url, ADMIN);
  const rows = (await (
    await fetch(`${server.url}/api/confirmations?status=approved`, { headers: { authorization: `Bearer ${token}` } })
  ).json()) as any[];
  const decided = rows.find((r) => r.args.id === 'PO-1002');
  // Another PO-1002 is pending with the same text as the decided one.
  const chat = member.page;
  await chat.getByRole('link', { name: 'Portal' }).click();
  await chat.getByRole('link', { name: 'Chat with demo-buyer' }).click();
  // A new conversation already ('New conversation' is disabled until one is open).
  await chat.getByTestId('chat-empty').waitFor();
  expect(await chat.getByRole('button', { name: 'New conversation' }).isDisabled()).toBe(true);
  const turn = await startPayments(chat);
  await pendingRequest(approver.page, 'PO-1002').waitFor();

  await approver.page.goto(`/approvals/${decided.id}`);
  const linked = approver.page.getByTestId('linked-request');
  await linked
    .getByText(/The linked request oa__purchase_pay PO-1002 was already approved by Demo Admin on /)
    .waitFor();
  await screenshot(approver.page, 'approvals-linked-decided');
  await turn.getByRole('button', { name: 'Cancel run' }).click();
  await approver.page.getByTestId('inbox-empty').waitFor();

  const offline = await approver.context.newPage();
  await offline.route('**/api/confirmations/stream', (route) => route.abort('connectionrefused'));
  await devSignIn(offline, ADMIN); // a new tab signs in again
  await offline.goto('/approvals');
  await offline.getByRole('status').filter({ hasText: 'Cannot reach the server — retrying' }).waitFor();
  expect(await offline.getByTestId('inbox-empty').count()).toBe(0);
  await screenshot(offline, 'approvals-unreachable');
  await offline.close();
}, 45_000);

it('an approver answers a question through a form rendered from its schema, told at the field what is missing', async () => {
  const token = await apiToken(server.url, ADMIN);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const form = {
    type: 'object',
    properties: { choice: { enum: ['ship', 'hold'] }, quantity: { type: 'integer', minimum: 1 } },
    required: ['choice', 'quantity'],
  };
  const script = [
    { tool_calls: [{ name: 'ask_human', args: { question: 'Ship or hold PO-1003?', form } }] },
    { content: 'Noted the answer.' },
  ];
  const created = await fetch(`${server.url}/api/agents`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      name: 'asker',
      model_config_json: {
        model: { provider: 'scripted', script },
        tools: ['ask_human'],
        confirmation: { approver_scope: 'org_admins' },
      },
    }),
  });
  expect(created.status).toBe(201);
  const chat = member.page;
  await chat.getByRole('link', { name: 'Portal' }).click();
  await chat.getByRole('link', { name: 'Chat with asker' }).click();
  await chat.getByLabel('Message').fill('Ask the warehouse about PO-1003');
  await chat.getByRole('button', { name: 'Send' }).click();

  const request = pendingRequest(approver.page, 'Ship or hold PO-1003?');
  await request.waitFor();
  const answer = request.getByLabel('Answer');
  expect(await answer.getByRole('textbox', { name: /JSON/ }).count()).toBe(0);
  await answer.getByText('Required').waitFor(); // quantity
  expect(await request.getByRole('button', { name: 'Answer' }).isDisabled()).toBe(true);
  await answer.getByLabel('quantity').fill('0');
  await answer.getByText('Must be at least 1').waitFor();
  await answer.getByLabel('quantity').fill('3');
  await screenshot(approver.page, 'approvals-question-form');
  await request.getByRole('button', { name: 'Answer' }).click();
  await chat.getByTestId('answer').filter({ hasText: 'Noted the answer.' }).waitFor();
  const observation = card(chat.getByTestId('turn').last(), 'ask_human').getByTestId('observation');
  expect(JSON.parse(await observation.innerText())).toEqual({ choice: 'ship', quantity: 3 });
}, 45_000);
