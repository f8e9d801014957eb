import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { expectAccessible } from '../support/axe.js';
import { apiToken, devSignIn, newPerson, screenshot, startConsole, unnamedControls } from '../support/browser.js';
import type { ServerProcess } from '../support/server-process.js';

/**
 * #31 gaps 3 and 6 in a real browser: an admin builds an agent with a tier policy and a YAML hook using fields only
 * (no JSON typed), sees errors at the field as typed (the server checks CEL and YAML), saves, reopens it, sees the
 * org's hooks in force, and dry-runs it: the rule that fired, the approver policy and tier, the args after a rewrite.
 */
let server: ServerProcess;
let browser: Browser;
let close: () => Promise<void>;
let page: Page;
const ADMIN = { sub: 'editor-admin', org: 'demo', roles: ['admin'] };
const DOCS = path.resolve(import.meta.dirname, '../../docs/screenshots');

beforeAll(async () => {
  ({ server, browser, close } = await startConsole({ HOOKS_DIR: path.resolve('test/fixtures/hooks') }));
  const person = await newPerson(browser, server.url);
  person.context.setDefaultTimeout(30_000); // a loaded CI machine: waits are for the page, not timing asserts
  page = person.page;
  await devSignIn(page, ADMIN);
  mkdirSync(DOCS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await close?.();
});

const api = async (p: string, init: { method?: string; body?: unknown } = {}) => {
  const token = await apiToken(server.url, ADMIN);
  const res = await fetch(`${server.url}${p}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return (await res.json()) as any;
};
/**
 * A picture for the README (docs/screenshots), the whole page at once: the viewport is made as tall as the page, as
 * a full-page capture would draw the fixed header and navigation where the page was scrolled to.
 */
async function docShot(name: string): Promise<void> {
  const size = page.viewportSize() ?? { width: 1280, height: 860 };
  const height = await page.evaluate<number>('document.documentElement.scrollHeight');
  await page.setViewportSize({ width: size.width, height: Math.max(size.height, height) });
  await page.screenshot({ path: path.join(DOCS, `${name}.png`) });
  await page.setViewportSize(size);
}

// First: later tests put result_truncate in the org's policy, where it is locked in every agent's editor.
it('a hook ticked while the agent is still loading is not undone when it arrives', async () => {
  // The agent's GET is held until the tick has been tried: the form must not take input it would then overwrite.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const agentGet = /\/api\/agents\/[0-9a-f-]{36}$/;
  await page.route(agentGet, async (route) => {
    if (route.request().method() === 'GET') await held;
    await route.continue();
  });
  await page.getByRole('link', { name: 'Agents' }).click();
  await page.getByRole('link', { name: 'Edit demo-buyer' }).click();
  await page.getByText('Loading the agent…').waitFor();
  const tick = page.getByLabel('Attach result_truncate').check();
  release();
  await tick;
  await page.getByLabel('max_chars').waitFor();
  expect(await page.getByLabel('Attach result_truncate').isChecked()).toBe(true);
  await page.unroute(agentGet);
}, 60_000);

it('an admin creates an agent with a tier policy and a YAML hook through fields, reopens it and dry-runs it', async () => {
  await api('/api/org/hooks', {
    method: 'PUT',
    body: { class_hooks: [{ name: 'result_truncate', config: { max_chars: 4000 } }] },
  });
  await page.getByRole('link', { name: 'Agents' }).click();
  await page.getByRole('link', { name: 'New agent' }).click();
  // A required field's label reads "Name *" (the star is hidden from its accessible name, "Name").
  await page.getByRole('textbox', { name: 'Name', exact: true }).fill('payer');
  await page.getByLabel('Base URL').fill('https://llm.example.test/v1');
  await page.getByRole('combobox', { name: 'Tools' }).click();
  await page.getByRole('option', { name: 'oa__purchase_pay' }).click();
  // The picker stays open for more picks: Escape closes it, as a person does before the next field.
  await page.getByRole('combobox', { name: 'Tools' }).press('Escape');
  await page.getByLabel('Every tool call needs approval').check();
  const approvers = page.getByRole('combobox', { name: 'Approvers', exact: true });
  await approvers.fill('org_admins');
  await approvers.press('Enter');
  await approvers.press('Escape');
  await page.getByLabel('Forbid self-approval').check();

  // A tier: its CEL condition is checked by the server as typed, and tried on the example args.
  await page.getByRole('button', { name: 'Add tier' }).click();
  const when = page.getByLabel('Tier 1 applies when (CEL)');
  await when.fill('args.amount >');
  await page
    .getByRole('group', { name: 'Tier 1' })
    .getByText(/Syntax|Unexpected|expected|invalid/i)
    .first()
    .waitFor();
  await when.fill('args.amount > 50000');
  await page.getByRole('status').filter({ hasText: 'Applies to the example args' }).waitFor();
  const tierApprovers = page.getByRole('combobox', { name: 'Tier 1 approvers' });
  await tierApprovers.fill('role:finance');
  await tierApprovers.press('Enter');
  await tierApprovers.press('Escape');

  // The org's hook is in force here: checked and locked.
  const locked = page.getByLabel('result_truncate (org policy, in force)');
  expect(await locked.isChecked()).toBe(true);
  expect(await locked.isDisabled()).toBe(true);

  // A YAML hook: what the server refuses shows at the field as typed, before any Save.
  const yaml = page.getByLabel('YAML hooks');
  await yaml.fill('hooks:\n  - name: redact-card\n    event: PreToolUse\n    module: ./no-such.mjs\n');
  await page
    .getByText(/module "\.\/no-such\.mjs"/)
    .first()
    .waitFor();
  await yaml.fill(
    'hooks:\n  - name: redact-card\n    event: PreToolUse\n    matcher: "oa__*"\n    module: ./redact-card.mjs\n',
  );
  await page.getByText(/module "\.\/no-such\.mjs"/).waitFor({ state: 'detached' });
  expect(await unnamedControls(page)).toEqual([]);
  await expectAccessible(page, 'agent editor');
  await docShot('agent-editor');

  await page.getByRole('button', { name: 'Save agent' }).click();
  await page.getByText('Saved payer').waitFor();
  await page.waitForURL(/\/admin\/agents\/[0-9a-f-]{36}$/);
  const saved = (await api('/api/agents')).find((a: any) => a.name === 'payer');
  expect(saved.model_config_json).toMatchObject({
    tools: ['oa__purchase_pay'],
    require_confirmation_for_all: true,
    confirmation: {
      approvers: ['org_admins'],
      forbid_self_approval: true,
      tiers: [{ when: 'args.amount > 50000', approvals: 1, approvers: ['role:finance'] }],
    },
    hooks: { yaml: expect.stringContaining('./redact-card.mjs') },
  });

  // Reopened: the fields hold what was saved; the Advanced tab holds the same config.
  await page.reload();
  // The tier's group appears once the saved config is loaded into the fields.
  await page.getByRole('group', { name: 'Tier 1' }).waitFor();
  expect(await page.getByRole('textbox', { name: 'Tier 1 applies when (CEL)' }).inputValue()).toBe(
    'args.amount > 50000',
  );
  expect(await page.getByLabel('YAML hooks').inputValue()).toContain('./redact-card.mjs');
  await page.getByRole('table', { name: 'Effective hooks of payer' }).getByText('org policy').first().waitFor();
  await page.getByRole('tab', { name: 'Advanced (JSON)' }).click();
  const json = page.getByLabel('Model settings, tools, policy and hooks (JSON)');
  expect(JSON.parse(await json.inputValue())).toEqual(saved.model_config_json);
  await page.getByRole('tab', { name: 'Fields' }).click();

  // Dry run: the rule that fired, the real approver policy and tier, and the args after the rewrite.
  await page
    .getByLabel('Arguments (JSON)')
    .fill('{ "id": "PO-7", "amount": 68000, "card_number": "4111111111111111" }');
  await page.getByRole('button', { name: 'Dry run' }).click();
  const verdicts = page.getByRole('table', { name: 'Dry-run verdicts' });
  await verdicts.getByText('confirmation_gate').waitFor();
  const text = await verdicts.innerText();
  expect(text).toMatch(/redact-card[\s\S]*rewrite[\s\S]*Rule:\s*matcher "oa__\*"[\s\S]*Args after:[\s\S]*\*\*\*\*1111/);
  // Both rules that ask for a person: the seeded action's own condition, and the agent's "every tool call".
  expect(text).toMatch(/Rule:\s*requires_confirmation_when args\.amount > 50000; require_confirmation_for_all/);
  expect(text).toMatch(/Approvers:\s*the finance role/);
  expect(text).toMatch(/Tier 1:\s*args\.amount > 50000, 1 approval/);
  expect(text).not.toMatch(/initiator/);
  await expectAccessible(page, 'agent dry run');
  await screenshot(page, 'agent-editor-dry-run');
  await docShot('agent-dry-run');
}, 240_000);
