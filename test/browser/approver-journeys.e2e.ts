import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startFakeFeishu, type FakeFeishu } from '../fakes/fake-feishu.js';
import { expectAccessible } from '../support/axe.js';
import { apiToken, devSignIn, newPerson, screenshot, startConsole } from '../support/browser.js';
import { until } from '../support/eventually.js';
import type { ServerProcess } from '../support/server-process.js';

/**
 * Issue #31 gap 8, as approvers do it in the console against the built server: linking one's own Feishu account with
 * the one-time code the fake Feishu delivers, and handing an approval request to another approver, who approves it.
 */
let server: ServerProcess;
let browser: Browser;
let close: () => Promise<void>;
let feishu: FakeFeishu;
interface Person {
  context: BrowserContext;
  page: Page;
}
let member: Person;
let admin: Person;
let bob: Person;
const FEISHU_APP = { appId: 'cli_journey', appSecret: 'journey-secret' };
const ADMIN = { sub: 'demo-admin', org: 'demo', roles: ['admin'] };
const BOB = { sub: 'bob', org: 'demo', roles: ['admin'] };
const MEMBER = { sub: 'mia', org: 'demo', roles: [] };

beforeAll(async () => {
  feishu = await startFakeFeishu(FEISHU_APP);
  ({ server, browser, close } = await startConsole());
  [member, admin, bob] = await Promise.all([1, 2, 3].map(() => newPerson(browser, server.url)));
  for (const p of [member, admin, bob]) p.context.setDefaultTimeout(30_000); // a loaded machine: waits, not timing asserts
  await Promise.all([devSignIn(member.page, MEMBER), devSignIn(admin.page, ADMIN), devSignIn(bob.page, BOB)]);
}, 120_000);

afterAll(async () => {
  await close?.();
  await feishu?.close();
});

it('an approver links their Feishu account with the code Feishu delivered to it', async () => {
  const token = await apiToken(server.url, ADMIN);
  const channel = await fetch(`${server.url}/api/channels`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      type: 'feishu',
      name: 'approvals-feishu',
      config: {
        ...{ app_id: FEISHU_APP.appId, app_secret: FEISHU_APP.appSecret },
        chat_id: 'oc_fin',
        verification_token: 'vt',
        base_url: feishu.url,
      },
    }),
  });
  expect(channel.status).toBe(201);

  const page = bob.page;
  await page.getByRole('link', { name: 'My chat accounts' }).click();
  const linked = page.getByRole('table', { name: 'Linked accounts' });
  await linked.locator('tr[data-platform="feishu"]').filter({ hasText: 'not linked' }).waitFor();
  await expectAccessible(page, 'my chat accounts');
  const form = page.getByRole('form', { name: 'Link an account' });
  await form.getByLabel('Account id').fill('ou_bob');
  await form.getByRole('button', { name: 'Send code' }).click();

  // The chat side: the code arrives as a direct message to that Feishu account, and its owner types it in.
  const dm = await until('the code sent to ou_bob', () =>
    feishu.sent.find((m) => m.chatId === 'ou_bob' && m.receiveIdType === 'open_id'),
  );
  const code = /Code: (\d{6})/.exec(dm.content.text as string)![1];
  const enter = page.getByRole('form', { name: 'Enter the code' });
  const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
  await enter.getByLabel('Code').fill(wrong);
  await enter.getByRole('button', { name: 'Link account' }).click();
  await enter.getByRole('alert').filter({ hasText: 'Nothing was linked: wrong code' }).waitFor();
  await expectAccessible(page, 'link code form with an error');
  await screenshot(page, 'me-link-chat-account');
  await enter.getByLabel('Code').fill(code);
  await enter.getByRole('button', { name: 'Link account' }).click();
  await linked.locator('tr[data-platform="feishu"]').filter({ hasText: 'ou_bob' }).waitFor();
  const me = (await (
    await fetch(`${server.url}/api/me`, { headers: { authorization: `Bearer ${await apiToken(server.url, BOB)}` } })
  ).json()) as {
    identities: { feishu_open_id: string | null };
  };
  expect(me.identities.feishu_open_id).toBe('ou_bob');
}, 90_000);

it('an approver reassigns a request (the server refuses someone the policy does not allow, with its reason) and the new approver approves it', async () => {
  await admin.page.getByRole('link', { name: 'Approvals' }).click();
  await bob.page.getByRole('link', { name: 'Approvals' }).click();
  const chat = member.page;
  await chat.getByRole('link', { name: 'Portal' }).click();
  await chat.getByRole('link', { name: 'Chat with demo-buyer' }).click();
  await chat.getByLabel('Message').fill('Pay the open purchase orders');
  await chat.getByRole('button', { name: 'Send' }).click();

  const card = admin.page.getByTestId('pending-confirmation').filter({ hasText: 'PO-1002' });
  await card.getByRole('button', { name: 'Reassign…' }).click();
  const reassign = card.getByRole('form', { name: 'Reassign' });
  await reassign.getByRole('combobox', { name: 'Reassign to' }).click();
  await admin.page.getByRole('option', { name: 'mia' }).click();
  await reassign.getByRole('button', { name: 'Reassign' }).click();
  // mia asked for the payment and is no admin: the request's policy (org_admins) does not allow her.
  await reassign.getByRole('alert').filter({ hasText: 'Not reassigned: mia may not approve this request' }).waitFor();
  await expectAccessible(admin.page, 'inbox, reassignment refused');
  await screenshot(admin.page, 'approvals-reassign-refused');

  await reassign.getByRole('combobox', { name: 'Reassign to' }).click();
  await admin.page.getByRole('option', { name: /bob/ }).click();
  await reassign.getByLabel('Why (optional)').fill('Bob runs purchasing this week');
  await reassign.getByRole('button', { name: 'Reassign' }).click();
  await card.waitFor({ state: 'detached' });

  const bobsCard = bob.page.getByTestId('pending-confirmation').filter({ hasText: 'PO-1002' });
  await bobsCard.getByRole('button', { name: 'Approve', exact: true }).click();
  await bob.page.getByTestId('inbox-empty').waitFor();
  await chat.getByTestId('answer').filter({ hasText: 'Both payment requests are handled' }).waitFor();
}, 90_000);
