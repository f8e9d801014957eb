import type { Browser, BrowserContext, Page } from 'playwright-core';
import { apiToken, devSignIn, newPerson, screenshot, startConsole } from '../support/browser.js';
import type { ServerProcess } from '../support/server-process.js';

/**
 * Issue #32 break 5: the gated calls of one model turn in the approvals inbox, against the built server (`dist/`) with
 * the demo agent's connector and gate (payments over 50 000 need an org admin): one group, in turn order, "Approve all".
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
}, 60_000);

afterAll(() => close?.());

it('three gated calls of one model turn show as one group in turn order in the inbox; "Approve all 3" approves them and the run completes', async () => {
  const token = await apiToken(server.url, ADMIN);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const [demo] = (await (await fetch(`${server.url}/api/agents`, { headers })).json()) as any[];
  const pays = [1, 2, 3].map((n) => ({ name: 'oa__purchase_pay', args: { id: `PO-300${n}`, amount: 70_000 + n } }));
  const script = [{ tool_calls: pays }, { content: 'All three are paid.' }];
  const created = await fetch(`${server.url}/api/agents`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      name: 'turn-buyer',
      model_config_json: { ...demo.model_config_json, model: { provider: 'scripted', script } },
    }),
  });
  expect(created.status).toBe(201);

  const inbox = approver.page;
  await inbox.goto('/approvals');
  const chat = member.page;
  await chat.getByRole('link', { name: 'Portal' }).click();
  await chat.reload(); // the agent was created over the API after the Portal listed agents
  await chat.getByRole('link', { name: 'Chat with turn-buyer' }).click();
  await chat.getByLabel('Message').fill('Pay PO-3001 to PO-3003');
  await chat.getByRole('button', { name: 'Send' }).click();

  const turn = inbox.getByTestId('pending-confirmation').filter({ hasText: /PO-300\d/ });
  await turn.nth(2).waitFor();
  expect(await turn.count()).toBe(3);
  const texts = await turn.allInnerTexts();
  // Each card's own arguments (the member's message on every card names all three).
  const args = await turn.getByRole('table', { name: 'Arguments' }).allInnerTexts();
  expect(args.map((t) => /PO-300\d/.exec(t)?.[0])).toEqual(['PO-3001', 'PO-3002', 'PO-3003']);
  expect(texts.map((t) => /call \d of 3 in one model turn/i.exec(t)?.[0].toLowerCase())).toEqual([
    'call 1 of 3 in one model turn',
    'call 2 of 3 in one model turn',
    'call 3 of 3 in one model turn',
  ]);
  await screenshot(inbox, 'approvals-one-turn');
  await turn.first().getByRole('button', { name: 'Approve all 3' }).click();
  await inbox.getByTestId('inbox-empty').waitFor();
  await chat.getByTestId('answer').filter({ hasText: 'All three are paid.' }).waitFor();

  // The Decided table says each status in full (it used to cut "approved" to "APP…"), on a phone too.
  await inbox.setViewportSize({ width: 390, height: 844 });
  await inbox.getByRole('tab', { name: 'Decided' }).click();
  const badges = inbox.getByRole('table', { name: 'Decided requests' }).locator('.mantine-Badge-label');
  await badges.first().waitFor();
  const cut = await badges.evaluateAll((els) =>
    els.filter((el) => el.scrollWidth > el.clientWidth).map((el) => el.textContent),
  );
  expect(cut).toEqual([]);
  await screenshot(inbox, 'approvals-decided-badges');
}, 45_000);
