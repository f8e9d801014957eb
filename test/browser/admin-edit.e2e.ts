import type { Browser, Page } from 'playwright-core';
import { apiToken, devSignIn, newPerson, screenshot, startConsole, unnamedControls } from '../support/browser.js';
import type { ServerProcess } from '../support/server-process.js';

/**
 * Connectors and channels are edited and deleted on screen (#31 break 4). Auth headers and channel secrets are
 * write-only: the forms name what is stored, never its value, and a connector moved to another origin must be given
 * its headers again (the API refuses otherwise, so the form says so before Save).
 */
let server: ServerProcess;
let browser: Browser;
let close: () => Promise<void>;
let page: Page;
const ADMIN = { sub: 'edit-admin', org: 'demo', roles: ['admin'] };
const ERP_TOKEN = 'erp-TOKEN-51c9aa';
const SLACK_TOKEN = 'xoxb-console-SLACK-77e1';

beforeAll(async () => {
  ({ server, browser, close } = await startConsole());
  ({ page } = await newPerson(browser, server.url));
  await devSignIn(page, ADMIN);
}, 60_000);

afterAll(async () => {
  await close?.();
});

const api = async (path: string, init: { method?: string; body?: unknown } = {}) => {
  const token = await apiToken(server.url, ADMIN);
  const res = await fetch(`${server.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return res.text();
};
const erp = async () => (JSON.parse(await api('/api/connectors')) as any[]).find((c) => c.name === 'erp');

it('an admin edits a connector, must re-enter its auth header when the origin moves, and deletes it', async () => {
  await page.getByRole('link', { name: 'Connectors' }).click();
  await page.getByLabel('Connector name').fill('erp');
  await page.getByLabel('Base URL').fill('http://erp.example.test');
  await page.getByLabel('Action name').fill('transfer');
  await page.getByLabel('Header name 1').fill('Authorization');
  await page.getByLabel('Header value 1').fill(`Bearer ${ERP_TOKEN}`);
  await page.getByRole('button', { name: 'Create connector' }).click();
  await page.getByText(/Connector erp created: erp__transfer/).waitFor();
  expect((await erp()).header_keys).toEqual(['Authorization']);

  // Edit: the form holds what is stored, the header by name only; a second action is added.
  const table = page.getByRole('table', { name: 'Connectors' });
  await page.getByRole('button', { name: 'Edit connector erp' }).click();
  expect(await page.getByLabel('Base URL').inputValue()).toBe('http://erp.example.test');
  await page.getByText('Stored: Authorization').waitFor();
  expect(await page.content()).not.toContain(ERP_TOKEN);
  await page.getByRole('button', { name: 'Add action' }).click();
  await page.getByRole('group', { name: 'Action 2' }).getByLabel('Action name').fill('refund');
  await page.getByRole('button', { name: 'Save connector erp' }).click();
  await page.getByText('Connector erp saved').first().waitFor();
  await table.getByRole('row').filter({ hasText: 'transfer, refund' }).waitFor();
  expect((await erp()).header_keys).toEqual(['Authorization']);

  // Another origin: the stored header is not sent there, so the form asks for it again before it can be saved.
  await page.getByRole('button', { name: 'Edit connector erp' }).click();
  await page.getByLabel('Base URL').fill('http://erp2.example.test');
  await page.getByRole('note').filter({ hasText: 'enter the headers again (Authorization)' }).waitFor();
  expect(await page.getByRole('button', { name: 'Save connector erp' }).isDisabled()).toBe(true);
  await screenshot(page, 'admin-connector-origin-moved');
  await page.getByLabel('Header name 1').fill('Authorization');
  await page.getByLabel('Header value 1').fill(`Bearer ${ERP_TOKEN}-2`);
  await page.getByRole('button', { name: 'Save connector erp' }).click();
  await page.getByText('Connector erp saved').first().waitFor();
  await table.getByText('http://erp2.example.test').waitFor();
  expect((await erp()).base_url).toBe('http://erp2.example.test');
  expect(await api('/api/connectors')).not.toContain(ERP_TOKEN);
  expect(await unnamedControls(page)).toEqual([]);

  await page.getByRole('button', { name: 'Delete connector erp' }).click();
  await page.getByRole('button', { name: 'Really delete connector erp?' }).click();
  await table.getByText('erp2.example.test').waitFor({ state: 'detached' });
  expect(await erp()).toBeUndefined();
}, 60_000);

it('an admin renames a channel and changes a setting while its secret is kept, then deletes it', async () => {
  await api('/api/channels', {
    method: 'POST',
    body: {
      type: 'slack',
      name: 'ops-slack',
      config: { bot_token: SLACK_TOKEN, signing_secret: 'sign-123', channel: 'C-OLD' },
    },
  });
  await page.getByRole('link', { name: 'Channels' }).click();
  const table = page.getByRole('table', { name: 'Channels' });
  await table.getByText('ops-slack').waitFor();

  await page.getByRole('button', { name: 'Edit channel ops-slack' }).click();
  await page.getByText(/Secrets stored: bot_token, signing_secret/).waitFor();
  const config = page.getByLabel('Settings of ops-slack (JSON)');
  expect(await config.inputValue()).toContain('C-OLD');
  expect(await config.inputValue()).not.toContain(SLACK_TOKEN);
  await page.getByLabel('Name of ops-slack').fill('approvals-slack');
  await config.fill('{"channel": "C-NEW"');
  await page.getByText('Not valid JSON').waitFor();
  // Another address for the secrets: the API would refuse it without them, and the form says so first.
  await config.fill('{"channel": "C-NEW", "base_url": "https://slack.elsewhere.example"}');
  await page.getByRole('note').filter({ hasText: 'enter bot_token, signing_secret here' }).waitFor();
  expect(await page.getByRole('button', { name: 'Save channel ops-slack' }).isDisabled()).toBe(true);
  await config.fill('{"channel": "C-NEW"}');
  await page.getByRole('button', { name: 'Save channel ops-slack' }).click();
  await page.getByText('Channel approvals-slack saved').waitFor();
  await table.getByText('approvals-slack').waitFor();
  const saved = (JSON.parse(await api('/api/channels')) as any[])[0];
  expect(saved).toMatchObject({ name: 'approvals-slack', config: { channel: 'C-NEW' } });
  expect(saved.secrets_set.sort()).toEqual(['bot_token', 'signing_secret']);
  expect(await page.content()).not.toContain(SLACK_TOKEN);
  expect(await unnamedControls(page)).toEqual([]);
  await screenshot(page, 'admin-channel-edited');

  await page.getByRole('button', { name: 'Delete channel approvals-slack' }).click();
  await page.getByRole('button', { name: 'Really delete channel approvals-slack?' }).click();
  await page.getByText(/No channels/).waitFor();
  expect(JSON.parse(await api('/api/channels'))).toEqual([]);
}, 40_000);
