import type { Browser, Page } from 'playwright-core';
import { startMcpShopServer, type McpShopServer } from '../fakes/mcp-shop-server.js';
import { apiToken, devSignIn, newPerson, screenshot, startConsole, unnamedControls } from '../support/browser.js';
import type { ServerProcess } from '../support/server-process.js';

/**
 * What an admin once set up with curl, now on screen (#31 break 1): an LLM credential whose key is write-only, an MCP
 * server (the fake shop under test/fakes) with its discovered tools and a per-tool override, and the org-wide hooks
 * as YAML checked as typed, with the effective chain of an agent.
 */
let server: ServerProcess;
let browser: Browser;
let close: () => Promise<void>;
let page: Page;
let shop: McpShopServer;
const ADMIN = { sub: 'setup-admin', org: 'demo', roles: ['admin'] };
const LLM_KEY = 'sk-console-LLM-9c1d7e';
const SHOP_TOKEN = 'shop-TOKEN-4b2e8a';

beforeAll(async () => {
  [{ server, browser, close }, shop] = await Promise.all([
    startConsole({ HOOK_HTTP_ALLOW: '127.0.0.1:9' }),
    startMcpShopServer({ token: SHOP_TOKEN }),
  ]);
  ({ page } = await newPerson(browser, server.url));
  await devSignIn(page, ADMIN);
}, 60_000);

afterAll(async () => {
  await close?.();
  await shop?.close();
});

const api = async (path: string) => {
  const token = await apiToken(server.url, ADMIN);
  return (await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } })).text();
};

it('an admin stores an LLM credential for one origin, and its key is never shown again', async () => {
  await page.getByRole('link', { name: 'LLM credentials' }).click();
  await page.getByText('No LLM credentials yet').waitFor();
  await page.getByLabel('Credential name').fill('openai-prod');
  await page.getByLabel('Origin').fill('https://api.openai.com/v1');
  await page.getByLabel('API key').fill(LLM_KEY);
  await page.getByRole('button', { name: 'Save credential' }).click();
  await page.getByText('Credential openai-prod saved').waitFor();
  const row = page.getByRole('table', { name: 'LLM credentials' }).getByRole('row').filter({ hasText: 'openai-prod' });
  await row.getByText('https://api.openai.com').waitFor();
  expect(await page.getByLabel('API key').inputValue()).toBe('');
  expect(await page.content()).not.toContain(LLM_KEY);
  expect(await api('/api/llm-credentials')).not.toContain(LLM_KEY);
  expect(await unnamedControls(page)).toEqual([]);
  await screenshot(page, 'admin-llm-credentials');

  // Moving it to another model server needs the key again: the form says so before it can be saved.
  await page.getByRole('button', { name: 'Edit credential openai-prod' }).click();
  await page.getByLabel('Origin of openai-prod').fill('https://llm.internal.example');
  await page.getByRole('note').filter({ hasText: 'enter the API key again' }).waitFor();
  expect(await page.getByRole('button', { name: 'Save credential openai-prod' }).isDisabled()).toBe(true);
  await page.getByLabel('New API key for openai-prod').fill(`${LLM_KEY}-internal`);
  await page.getByRole('button', { name: 'Save credential openai-prod' }).click();
  await page.getByText('Credential openai-prod saved').first().waitFor();
  await row.getByText('https://llm.internal.example').waitFor();
  expect(await page.content()).not.toContain(LLM_KEY);
  expect(await api('/api/llm-credentials')).not.toContain(LLM_KEY);
}, 30_000);

it('an admin adds the MCP server with its token, sees the tools it offers, and makes one ask for confirmation', async () => {
  await page.getByRole('link', { name: 'MCP servers' }).click();
  await page.getByLabel('Server name').fill('shop');
  await page.getByLabel('Endpoint URL').fill(shop.url);
  await page.getByLabel('Header name 1').fill('Authorization');
  await page.getByLabel('Header value 1').fill(`Bearer ${SHOP_TOKEN}`);
  await page.getByRole('button', { name: 'Add MCP server' }).click();
  await page.getByText('MCP server shop added').waitFor();

  const tools = page.getByRole('table', { name: 'Tools of shop' });
  for (const tool of ['shop__pay', 'shop__lookup', 'shop__cancel', 'shop__note']) await tools.getByText(tool).waitFor();
  expect(await page.getByTestId('mcp-shop').innerText()).toMatch(/connected/i);
  expect(await page.content()).not.toContain(SHOP_TOKEN);

  // lookup says it is read-only: the override makes it ask a person when the invoice is a big one.
  const when = page.getByLabel('Requires confirmation when (CEL) for lookup');
  await when.fill('args.invoice ==');
  await page.getByTestId('mcp-shop').locator('[id$="-error"]').filter({ hasText: /./ }).first().waitFor();
  expect(await page.getByRole('button', { name: 'Save overrides of shop' }).isDisabled()).toBe(true);
  await when.fill('args.invoice == "INV-BIG"');
  await page.getByRole('button', { name: 'Save overrides of shop' }).click();
  await page.getByText('Overrides of shop saved').waitFor();
  await tools.getByRole('row').filter({ hasText: 'shop__lookup' }).getByText('args.invoice == "INV-BIG"').waitFor();

  const saved = JSON.parse(await api('/api/mcp-servers')) as Array<{ tool_overrides: unknown; header_keys: string[] }>;
  expect(saved[0].tool_overrides).toEqual({ lookup: { requires_confirmation_when: 'args.invoice == "INV-BIG"' } });
  expect(saved[0].header_keys).toEqual(['Authorization']);
  expect(JSON.stringify(saved)).not.toContain(SHOP_TOKEN);
  expect(await unnamedControls(page)).toEqual([]);
  await screenshot(page, 'admin-mcp-servers');

  // Another origin needs the token again; the same origin keeps it.
  await page.getByRole('button', { name: 'Edit MCP server shop' }).click();
  const endpoint = page.getByLabel('Endpoint URL of shop');
  await endpoint.fill('https://mcp.elsewhere.example/mcp');
  await page.getByRole('note').filter({ hasText: 'enter the headers again (Authorization)' }).waitFor();
  expect(await page.getByRole('button', { name: 'Save MCP server shop' }).isDisabled()).toBe(true);
  await endpoint.fill(`${shop.url}?v=2`);
  await page.getByRole('button', { name: 'Save MCP server shop' }).click();
  await page.getByText('MCP server shop saved').waitFor();
  await page.getByTestId('mcp-shop').getByText(`${shop.url}?v=2`).waitFor();
  await tools.getByText('shop__pay').waitFor();
}, 40_000);

it('an admin deletes an MCP server and its tools are gone', async () => {
  await page.getByRole('button', { name: 'Delete MCP server shop' }).click();
  await page.getByRole('button', { name: 'Really delete MCP server shop?' }).click();
  await page.getByText('No MCP servers yet').waitFor();
  expect(JSON.parse(await api('/api/mcp-servers'))).toEqual([]);
}, 20_000);

it('an admin saves org-wide YAML hooks after an inline error, and sees them in the effective chain of an agent', async () => {
  await page.getByRole('link', { name: 'Org hooks' }).click();
  const yaml = page.getByLabel('YAML hooks');
  await yaml.fill('hooks:\n  - name: payments-policy\n    event: [PreToolUse\n');
  await page
    .getByText(/Flow sequence|Missing|unexpected|end of/i)
    .first()
    .waitFor();
  expect(await page.getByRole('button', { name: 'Save org hooks' }).isDisabled()).toBe(true);
  await screenshot(page, 'admin-org-hooks-yaml-error');

  // The server checks the meaning: an unknown hook type is named at the field, nothing is saved.
  await yaml.fill('hooks:\n  - name: payments-policy\n    event: PreToolUse\n    type: carrier-pigeon\n');
  await page.getByRole('button', { name: 'Save org hooks' }).click();
  await page
    .getByTestId('org-hooks-problems')
    .filter({ hasText: /hooks\.yaml/ })
    .waitFor();
  expect(await api('/api/org/hooks')).not.toContain('payments-policy');

  await yaml.fill(
    'hooks:\n  - name: payments-policy\n    event: PreToolUse\n    matcher: "oa__purchase_pay"\n    type: http\n' +
      '    url: http://127.0.0.1:9/v1/data/warden/payments/decision\n    format: opa\n',
  );
  await page.getByRole('button', { name: 'Save org hooks' }).click();
  await page.getByText('Org hooks saved').waitFor();
  expect(JSON.parse(await api('/api/org/hooks')).hooks.yaml).toContain('payments-policy');

  await page.getByRole('combobox', { name: 'Effective chain of agent' }).click();
  await page.getByRole('option', { name: 'demo-buyer' }).click();
  const chain = page.getByRole('table', { name: 'Effective hooks of demo-buyer' });
  await chain.getByRole('row').filter({ hasText: 'payments-policy' }).filter({ hasText: 'org' }).waitFor();
  await chain.getByRole('row').filter({ hasText: 'confirmation_gate' }).waitFor();
  expect(await unnamedControls(page)).toEqual([]);
  await screenshot(page, 'admin-org-hooks');
}, 40_000);
