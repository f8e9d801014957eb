import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { startFakeFeishu, type FakeFeishu } from '../fakes/fake-feishu.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { expectAccessible } from '../support/axe.js';
import { apiToken, devSignIn, newPerson, screenshot, startConsole } from '../support/browser.js';
import { until } from '../support/eventually.js';
import type { ServerProcess } from '../support/server-process.js';

/**
 * Admin and designer screens in a real browser: the hooks editor with generated forms and dry run, CEL checked as
 * typed, a workflow whose agent node waits for an approval given in the inbox, the audit log's CSV export, the
 * read-only switch and a run's trace, channels with write-only secrets and a test card to the fake Feishu.
 */
let server: ServerProcess;
let browser: Browser;
let close: () => Promise<void>;
let page: Page;
let feishu: FakeFeishu;
let llm: FakeOpenAI;
const FEISHU_APP = { appId: 'cli_console', appSecret: 'console-SECRET-7f3a9c' };
const ADMIN = { sub: 'demo-admin', org: 'demo', roles: ['admin'] };

beforeAll(async () => {
  llm = await startFakeOpenAI(() => ({ content: 'hello' }));
  const modelKey = {
    WARDEN_LLM_KEY_FAKE: 'sk-fake',
    LLM_KEY_ORIGINS: `WARDEN_LLM_KEY_FAKE=${new URL(llm.baseUrl).origin}`,
  };
  [{ server, browser, close }, feishu] = await Promise.all([startConsole(modelKey), startFakeFeishu(FEISHU_APP)]);
  ({ page } = await newPerson(browser, server.url));
  await devSignIn(page, ADMIN);
}, 60_000);

afterAll(async () => {
  await close?.();
  await feishu?.close();
  await llm?.close();
});

it('an admin attaches result_truncate through its generated form, sees it in a dry run, and saves it', async () => {
  await page.getByRole('link', { name: 'Agents' }).click();
  await page.getByRole('link', { name: 'Edit demo-buyer' }).click();
  await page.getByLabel('Attach result_truncate').check();
  await page.getByLabel('max_chars').fill('500');

  // YAML syntax errors show inline as typed.
  await page.getByLabel('YAML hooks').fill('hooks:\n  - event: PreToolUse\n    matcher: [oa__*\n');
  await page
    .getByText(/Flow sequence|Missing|unexpected|end of/i)
    .first()
    .waitFor();
  await page.getByLabel('YAML hooks').fill('');

  await page.getByRole('button', { name: 'Dry run' }).click();
  const verdicts = page.getByRole('table', { name: 'Dry-run verdicts' });
  await verdicts.getByText('result_truncate').waitFor();
  expect(await verdicts.innerText()).toMatch(
    /confirmation_gate\s+PreToolUse\s+would require confirmation\s+would wait up to 600 s for 1 approval by org_admins/i,
  );
  expect(await verdicts.innerText()).toContain('{"max_chars":500}');
  await screenshot(page, 'admin-hooks-dry-run');

  await page.getByRole('button', { name: 'Save agent' }).click();
  await page.getByText('Saved demo-buyer').waitFor();
  const token = await apiToken(server.url, ADMIN);
  const agents = (await (
    await fetch(`${server.url}/api/agents`, { headers: { authorization: `Bearer ${token}` } })
  ).json()) as any[];
  expect(agents[0].model_config_json.hooks.class_hooks).toEqual([
    { name: 'result_truncate', config: { max_chars: 500 } },
  ]);
}, 40_000);

it('a connector with a bad CEL condition shows the error inline and cannot be created until fixed', async () => {
  await page.getByRole('link', { name: 'Connectors' }).click();
  await page.getByLabel('Connector name').fill('erp');
  await page.getByLabel('Base URL').fill('http://erp.example.test');
  await page.getByLabel('Action name').fill('transfer');
  const cel = page.getByLabel('Requires confirmation when (CEL)');
  await cel.fill('args.amount >');
  await page.locator('[id$="-error"]').filter({ hasText: /./ }).first().waitFor();
  expect(await page.getByRole('button', { name: 'Create connector' }).isDisabled()).toBe(true);
  await screenshot(page, 'admin-connector-bad-cel');
  await cel.fill('args.amount > 10000');
  await page.getByRole('button', { name: 'Create connector' }).click();
  await page.getByText(/Connector erp created: erp__transfer/).waitFor();
  await page.getByRole('table', { name: 'Connectors' }).getByText('http://erp.example.test').waitFor();
}, 30_000);

it('a designer draws a workflow with an agent node, starts it, the node waits, and an approval from the inbox completes it', async () => {
  const token = await apiToken(server.url, ADMIN);
  const agents = (await (
    await fetch(`${server.url}/api/agents`, { headers: { authorization: `Bearer ${token}` } })
  ).json()) as any[];
  await page.getByRole('link', { name: 'Workflows' }).click();
  await page.getByRole('link', { name: 'New workflow' }).click();
  await page.getByLabel('Workflow name').fill('pay-po');
  // Imported as JSON through the designer's advanced tab (workflow-designer.e2e.ts draws one on the canvas).
  await page.getByRole('tab', { name: 'Advanced (JSON)' }).click();
  await page.getByLabel('Definition (JSON)').fill(
    JSON.stringify({
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'pay', type: 'agent', agent_id: agents[0].id, prompt: 'Pay {{inputs.po}}' },
        { id: 'end', type: 'end' },
      ],
      edges: [
        { from: 'start', to: 'pay' },
        { from: 'pay', to: 'end' },
      ],
    }),
  );
  await page.getByRole('button', { name: 'Save workflow' }).click();
  await page.getByText('Saved pay-po').waitFor();
  await page.getByRole('button', { name: 'Start run' }).click();

  await page.locator('[data-testid="node-pay"][data-status="waiting"]').waitFor();
  await page.getByRole('status').filter({ hasText: 'pay waiting for approval' }).waitFor();
  await screenshot(page, 'workflow-waiting');
  const runUrl = page.url();
  await page.getByRole('link', { name: 'Open the approvals inbox' }).click();
  await page
    .getByTestId('pending-confirmation')
    .filter({ hasText: 'PO-1002' })
    .getByRole('button', { name: 'Approve' })
    .click();
  await page.getByTestId('inbox-empty').waitFor();
  await page.goto(runUrl);
  await page.getByTestId('workflow-run-status').filter({ hasText: 'completed' }).waitFor();
  await page.locator('[data-testid="node-pay"][data-status="completed"]').waitFor();
}, 40_000);

it('the audit log lists connector calls and downloads them as CSV (the server streams the whole filtered log)', async () => {
  // The workflow above paid PO-1001 and PO-1002 through the oa connector.
  await page.getByRole('link', { name: 'Audit log' }).click();
  await page.getByRole('tab', { name: 'Connector calls' }).click();
  const table = page.getByRole('table', { name: 'Connector calls' });
  await table.getByText('oa__purchase_pay').first().waitFor();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export CSV' }).click(),
  ]);
  const csv = readFileSync(await download.path(), 'utf8')
    .trim()
    .split('\r\n');
  expect(csv[0]).toBe(
    'id,created_at,org_id,agent_id,user_id,run_id,call_id,surface,tool,connector_id,connector,action,method,url,args_digest,args,' +
      'status,duration_ms,success,error,blocked_by,simulated,outcome,approved_by',
  );
  expect(
    csv
      .filter((l) => l.includes('oa__purchase_pay'))
      .map((l) => /PO-100\d/.exec(l)?.[0])
      .sort(),
  ).toEqual(['PO-1001', 'PO-1002']);
  expect(download.suggestedFilename()).toBe('connector-calls.csv');
  await screenshot(page, 'admin-audit');
}, 30_000);

it('on a phone, sign-in works from the keyboard alone and the navigation folds behind a labelled menu button', async () => {
  const phone = await newPerson(browser, server.url, { width: 390, height: 800 });
  await phone.page.goto('/');
  await phone.page.getByLabel('User (sub)').fill('pia');
  await phone.page.getByLabel('User (sub)').press('Enter');
  await phone.page.getByTestId('whoami').filter({ hasText: 'pia' }).waitFor();
  const nav = phone.page.getByRole('navigation', { name: 'Main' });
  // Folded: the navigation sits off-screen to the left until the menu button opens it.
  const offScreen = async () => {
    const b = (await nav.boundingBox())!;
    return b.x + b.width <= 0;
  };
  expect(await offScreen()).toBe(true);
  await phone.page.getByRole('button', { name: 'Toggle navigation' }).click();
  // Polled from here: a string waitForFunction is an eval in the page, which the console's CSP refuses.
  await until('the navigation slid in', async () => ((await nav.boundingBox())?.x ?? -1) >= 0);
  await nav.getByRole('link', { name: 'Approvals' }).click();
  await phone.page.getByRole('heading', { name: 'Approvals' }).waitFor();
  await screenshot(phone.page, 'phone-approvals');
  await phone.context.close();
}, 30_000);

it('the read-only switch blocks every write tool, and the run trace shows the model turns and each hook with its outcome and duration', async () => {
  await page.getByRole('link', { name: 'Organisation' }).click();
  // The switch shows the server's state: it flips once the change is saved.
  await page.getByRole('switch', { name: 'Read-only mode' }).click();
  await page.getByRole('status').filter({ hasText: 'The organisation is read-only' }).waitFor();
  await screenshot(page, 'admin-read-only');

  await page.getByRole('link', { name: 'Portal' }).click();
  await page.getByRole('link', { name: 'Chat with demo-buyer' }).click();
  await page.getByLabel('Message').fill('Pay the open purchase orders');
  await page.getByRole('button', { name: 'Send' }).click();
  const turn = page.locator('[data-testid="turn"][data-status="completed"]');
  await turn.waitFor();
  for (const po of ['PO-1001', 'PO-1002'])
    await turn
      .getByTestId('tool-call')
      .filter({ hasText: po })
      .getByText('blocked by read_only_guard')
      .first()
      .waitFor();

  await turn.getByRole('link', { name: 'Trace' }).click();
  // A time line: each step with its clock time and offset from the run's start, what it was, its outcome and how long
  // it took. The model's first turn proposed both payments; read_only_guard blocked each before it was sent (a hook
  // row each, with its outcome and duration); audit_log recorded both; the model's second turn answered.
  const trace = page.getByRole('list', { name: 'Trace' });
  await trace.getByText('Model turn 2').waitFor();
  const rows = (await trace.getByRole('listitem').allInnerTexts()).map((r) => r.replace(/\s+/g, ' ').trim());
  const time = String.raw`\d\d:\d\d:\d\d\.\d{3} \(\+\d+(\.\d+)? m?s\)`;
  const took = String.raw`took \d+(\.\d+)? m?s`;
  expect(rows[0]).toMatch(
    new RegExp(`^${time} model turn Model turn 1 ${took} proposed oa__purchase_pay, oa__purchase_pay$`, 'i'),
  );
  const tools = rows.filter((r) => / tool call oa__purchase_pay /i.test(r));
  expect(tools.map((r) => /"id":"(PO-\d+)"/.exec(r)?.[1])).toEqual(['PO-1001', 'PO-1002']);
  const guard = rows.filter((r) => r.includes('read_only_guard · PreToolUse'));
  expect(guard).toHaveLength(2);
  for (const r of guard)
    expect(r).toMatch(
      new RegExp(`^${time} hook read_only_guard · PreToolUse block ${took} refused write tool oa__purchase_pay`, 'i'),
    );
  const audited = rows.filter((r) => r.includes('audit_log · PostToolUse'));
  expect(audited).toHaveLength(2);
  for (const r of audited) expect(r).toMatch(new RegExp(`^${time} hook audit_log · PostToolUse allow ${took}$`, 'i'));
  expect(rows.filter((r) => /observation oa__purchase_pay blocked by read_only_guard/i.test(r))).toHaveLength(2);
  expect(rows.at(-1)).toMatch(
    new RegExp(`^${time} model turn Model turn 2 answered ${took} Both payment requests are handled`, 'i'),
  );
  // The demo's scripted model is no model server: it reports no tokens, and the trace says so rather than show 0.
  await page.getByTestId('run-tokens').getByText('Token use: the model server reported none for this run').waitFor();
  await expectAccessible(page, 'run trace');
  await screenshot(page, 'admin-run-trace');

  await page.getByRole('link', { name: 'Organisation' }).click();
  await page.getByRole('switch', { name: 'Read-only mode' }).click();
  await page.getByRole('status').filter({ hasText: 'The organisation is read-only' }).waitFor({ state: 'detached' });
  const token = await apiToken(server.url, ADMIN);
  expect(
    ((await (await fetch(`${server.url}/api/org`, { headers: { authorization: `Bearer ${token}` } })).json()) as any)
      .read_only,
  ).toBe(false);
}, 40_000);

it('an admin creates a Feishu channel whose secret is never shown again, sends a test card, and a wrong secret says what to fix', async () => {
  await page.getByRole('link', { name: 'Channels' }).click();
  await page.getByText(/No channels/).waitFor();
  const create = async (name: string, appSecret: string) => {
    await page.getByLabel('Channel name').fill(name);
    await page.getByLabel('Config (JSON)').fill(
      JSON.stringify({
        app_id: FEISHU_APP.appId,
        app_secret: appSecret,
        chat_id: 'oc_console',
        verification_token: 'vt-console',
        base_url: feishu.url,
      }),
    );
    await page.getByRole('button', { name: 'Create channel' }).click();
    await page.getByText(`Channel ${name} created`).waitFor();
  };
  await create('approvals-feishu', FEISHU_APP.appSecret);
  const channels = page.getByRole('table', { name: 'Channels' });
  await channels.getByRole('row').filter({ hasText: 'approvals-feishu' }).waitFor();
  // Write-only: the secret is in no page, no form and no API answer.
  expect(await page.content()).not.toContain(FEISHU_APP.appSecret);
  expect(await page.getByLabel('Config (JSON)').inputValue()).not.toContain(FEISHU_APP.appSecret);
  const token = await apiToken(server.url, ADMIN);
  expect(
    await (await fetch(`${server.url}/api/channels`, { headers: { authorization: `Bearer ${token}` } })).text(),
  ).not.toContain(FEISHU_APP.appSecret);

  await page.getByRole('button', { name: 'Send a test card to approvals-feishu' }).click();
  await page.getByText(/Test card sent/).waitFor();
  expect(feishu.sent.map((m) => m.chatId)).toEqual(['oc_console']);
  expect(JSON.stringify(feishu.sent[0].content)).toContain('This is a test card from Warden');
  await screenshot(page, 'admin-channels');

  await create('broken-feishu', 'not-the-secret');
  await page.getByRole('button', { name: 'Send a test card to broken-feishu' }).click();
  await page
    .getByRole('alert')
    .filter({ hasText: 'The test card was not delivered' })
    .filter({ hasText: /Check the channel's credentials/ })
    .waitFor();
  expect(feishu.sent).toHaveLength(1);
  await screenshot(page, 'admin-channel-test-failed');
}, 40_000);

it('an unknown admin address says there is no such page instead of freezing the tab', async () => {
  await page.goto(`${server.url}/admin/no-such-page`);
  await page.getByText('No such admin page').waitFor();
  expect(new URL(page.url()).pathname).toBe('/admin/no-such-page');
  await page.getByRole('link', { name: 'agents', exact: true }).click();
  await page.getByRole('link', { name: 'Edit demo-buyer' }).waitFor();
}, 30_000);

it('a run on a model server shows the tokens each model turn used, as the server reported them, and their sum', async () => {
  const token = await apiToken(server.url, ADMIN);
  const api = async (path: string, body: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  };
  const model = { provider: 'openai', base_url: llm.baseUrl, model: 'fake-1', api_key_env: 'WARDEN_LLM_KEY_FAKE' };
  const created = await api('/api/agents', {
    name: 'token-counter',
    instructions: 'You look up purchase orders.',
    model_config_json: { model, tools: ['oa__get_purchase'] },
  });
  expect(created.status).toBe(201);
  llm.setHandler(
    (_, i) =>
      [
        {
          tool_calls: [{ name: 'oa__get_purchase', args: { id: 'PO-1001' } }],
          usage: { prompt_tokens: 1812, completion_tokens: 23 },
        },
        { content: 'PO-1001 is open.', usage: { prompt_tokens: 1901, completion_tokens: 9 } },
      ][i] ?? { content: 'out of script' },
  );
  const chat = await api('/api/chat', { agent_id: JSON.parse(created.text).id, message: 'Look up PO-1001' });
  const runId = /"run_id":"([0-9a-f-]{36})"/.exec(chat.text)?.[1];
  expect(chat.text).toContain('"status":"completed"');

  await page.goto(`/admin/runs/${runId}`);
  await page
    .getByTestId('run-tokens')
    .getByText('Token use: 3,745 tokens (3,713 in, 32 out) over 2 model call(s)')
    .waitFor();
  const trace = page.getByRole('list', { name: 'Trace' });
  await trace.getByText('Model turn 2').waitFor();
  const turns = (await trace.locator('li[data-kind="model turn"]').allInnerTexts()).map((r) => r.replace(/\s+/g, ' '));
  expect(turns).toHaveLength(2);
  expect(turns[0]).toContain('· 1,835 tokens (1,812 in, 23 out) proposed oa__get_purchase');
  expect(turns[1]).toMatch(/answered .*· 1,910 tokens \(1,901 in, 9 out\) PO-1001 is open\./i);
  await expectAccessible(page, 'run trace with tokens');
}, 60_000);
