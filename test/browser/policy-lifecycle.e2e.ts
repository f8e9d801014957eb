import pg from 'pg';
import type { Browser, Page } from 'playwright-core';
import { expectAccessible } from '../support/axe.js';
import { apiToken, devSignIn, newPerson, startConsole } from '../support/browser.js';
import type { ServerProcess } from '../support/server-process.js';

/**
 * #34 in a real browser: an admin changes an agent's policy safely from its editor — reads its history and the diff
 * between two versions, replays the edited policy over recorded calls, runs the policy's tests, rolls back (refused by
 * a failing test, then forced), deploys the edited policy as a shadow, reads its report and promotes it.
 */
let server: ServerProcess;
let browser: Browser;
let close: () => Promise<void>;
let page: Page;
let databaseUrl: string;
const ADMIN = { sub: 'lifecycle-admin', org: 'demo', roles: ['admin'] };
const PANEL = '[data-testid="policy-lifecycle"]';
const LIVE = { approvers: ['org_admins'] };
const TIERED = { approvers: ['org_admins'], tiers: [{ when: 'args.amount > 80000', approvals: 2 }] };
const CASES = [
  {
    name: 'big payments ask twice',
    tool: 'oa__purchase_pay',
    args: { id: 'PO-9', amount: 90000 },
    expect: { decision: 'ask', approvals: 2 },
  },
];

beforeAll(async () => {
  ({ server, browser, close, databaseUrl } = await startConsole());
  ({ page } = await newPerson(browser, server.url));
  await devSignIn(page, ADMIN);
}, 90_000);

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
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${p}: ${res.status} ${text}`);
  return text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text;
};

/** Three payments the live policy (one approval above 50 000) decided an hour ago. */
async function recordPayments(agentId: string): Promise<void> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query(
      `INSERT INTO policy_decisions (org_id, agent_id, user_id, tool, args, decision, approvals, args_digest, rewritten, created_at)
       SELECT a.org_id, a.id::text, 'payer', 'oa__purchase_pay', jsonb_build_object('id', 'PO-' || amount, 'amount', amount),
              CASE WHEN amount > 50000 THEN 'ask' ELSE 'allow' END, CASE WHEN amount > 50000 THEN 1 ELSE 0 END,
              encode(sha256(convert_to('oa__purchase_pay' || E'\n' || '{"amount":' || amount || ',"id":"PO-' || amount || '"}', 'UTF8')), 'hex'),
              false, now() - interval '1 hour'
         FROM agents a, unnest(ARRAY[1200, 68000, 90000]) AS amount WHERE a.id = $1`,
      [agentId],
    );
  } finally {
    await db.end();
  }
}

const panel = () => page.locator(PANEL);
const tab = async (name: string) => {
  await panel().getByRole('tab', { name }).click();
};

it('history and diff, replay, tests, a rollback refused then forced, a shadow reported and promoted', async () => {
  const model = {
    provider: 'scripted',
    script: [{ tool_calls: [{ name: 'oa__get_purchase', args: { id: 'PO-1001' } }] }, { content: 'done' }],
  };
  const body = (confirmation: unknown, comment: string) => ({
    name: 'careful payer',
    instructions: 'x',
    model_config_json: { model, tools: ['oa__*'], confirmation },
    comment,
  });
  const agent = await api('/api/agents', { method: 'POST', body: body(LIVE, 'first') });
  await api(`/api/agents/${agent.id}`, { method: 'PUT', body: body(TIERED, 'two approvals above 80 000') });
  await api(`/api/agents/${agent.id}/tests`, { method: 'PUT', body: { cases: CASES } });
  await recordPayments(agent.id);

  await page.goto(`/admin/agents/${agent.id}`);
  // The editor is loaded lazily; on a loaded machine that can take a while.
  await page.getByRole('heading', { name: 'Agent careful payer' }).waitFor({ timeout: 60_000 });
  // History: both versions, the live one marked; the diff between them names the tier that was added.
  const versions = panel().getByRole('table', { name: 'Policy versions' });
  await versions.getByText('two approvals above 80 000').waitFor();
  await versions.getByRole('row').filter({ hasText: 'live' }).filter({ hasText: 'two approvals' }).waitFor();
  await panel().getByRole('combobox', { name: 'Diff from' }).click();
  await page.getByRole('option', { name: 'Version 1' }).click();
  await panel().getByRole('combobox', { name: 'Diff to' }).click();
  await page.getByRole('option', { name: 'Version 2' }).click();
  await panel().getByRole('table', { name: 'Changes from version 1 to 2' }).getByText('/confirmation/tiers').waitFor();
  await expectAccessible(page, 'history and diff', PANEL);

  // Replay: the edited policy (the tier) over the three recorded payments changes exactly the 90 000 one.
  await tab('Replay');
  await panel().getByRole('button', { name: 'Replay' }).click();
  await panel()
    .getByTestId('replay-summary')
    .filter({
      hasText:
        'this change would have required 1 more approval, blocked 0 calls, changed 0 rewrites (1 of 3 calls decided differently)',
    })
    .waitFor();
  const changed = panel().getByRole('table', { name: 'Calls the candidate decides differently' });
  expect(await changed.getByRole('row').count()).toBe(2);
  await changed.getByText('"amount":90000').waitFor();
  await changed.getByText('ask (2 approvals)').waitFor();
  await expectAccessible(page, 'replay', PANEL);

  // Tests: the stored case passes on the edited policy; an extra case typed here fails, and says why.
  await tab('Tests');
  const casesField = panel().getByLabel('Test cases (JSON)');
  // The stored cases load into the field.
  await panel().getByTestId('saved-cases').filter({ hasText: '1 saved test case' }).waitFor();
  expect(await casesField.inputValue()).toContain('big payments ask twice');
  await panel().getByRole('button', { name: 'Run against the edited policy' }).click();
  await panel().getByText('All 1 passed (config policy)').waitFor();
  const extra = {
    name: 'reads run freely',
    tool: 'oa__get_purchase',
    args: { id: 'PO-1' },
    expect: { decision: 'deny' },
  };
  await casesField.fill(JSON.stringify([...CASES, extra], null, 2));
  await panel().getByRole('button', { name: 'Run against the edited policy' }).click();
  await panel().getByText('1 of 2 failed (config policy)').waitFor();
  await panel()
    .getByRole('table', { name: 'Test case results' })
    .getByText('decision: expected deny, got allow')
    .waitFor();
  await expectAccessible(page, 'tests', PANEL);

  // Rollback to version 1: its policy fails the stored test, so it is refused naming it; forced, it is recorded.
  await tab('History');
  await panel().getByRole('button', { name: 'Roll back to 1' }).click();
  const refused = panel().getByRole('alert').filter({ hasText: 'Rollback to version 1 refused' });
  await refused.getByText(/"big payments ask twice" \(approvals: expected 2, got 1\)/).waitFor();
  await expectAccessible(page, 'rollback refused', PANEL);
  await refused.getByRole('button', { name: 'Roll back anyway' }).click();
  await versions.getByText('forced past 1 failing test(s)').waitFor();
  const v3 = await api(`/api/agents/${agent.id}/versions/3`);
  expect(v3).toMatchObject({
    rolled_back_to: 1,
    tests_forced: ['big payments ask twice'],
    model_config_json: { confirmation: LIVE },
  });

  // Shadow: the edited policy (every call needs approval) beside the live one; a real call shows in its report.
  await page.getByLabel('Every tool call needs approval').check();
  await tab('Shadow');
  await panel().getByRole('switch', { name: 'Deploy as shadow' }).click();
  await panel()
    .getByText(/Shadow deployed .* beside version 3/)
    .waitFor();
  await api('/api/chat', { method: 'POST', body: { agent_id: agent.id, message: 'look up PO-1001' } });
  const report = panel().getByRole('region', { name: 'Shadow report' });
  for (let i = 0; i < 20 && !(await report.getByText('1 of 1 calls decided differently').isVisible()); i++) {
    await panel().getByRole('button', { name: 'Refresh report' }).click();
    await report.waitFor();
  }
  await report.getByText('1 of 1 calls decided differently').waitFor();
  await report
    .getByRole('table', { name: 'Calls the shadow would decide differently' })
    .getByText('would ask')
    .waitFor();
  await expectAccessible(page, 'shadow report', PANEL);

  // Promote: the tests refuse it too (one approval, not two); promoted anyway, it is the live policy.
  await panel().getByRole('button', { name: 'Promote shadow' }).click();
  await panel()
    .getByRole('alert')
    .filter({ hasText: 'Promotion refused' })
    .getByRole('button', { name: 'Promote anyway' })
    .click();
  await page.getByText('Shadow promoted: it is the live policy now').waitFor();
  expect((await api(`/api/agents/${agent.id}`)).model_config_json.require_confirmation_for_all).toBe(true);
  const last = (await api(`/api/agents/${agent.id}/versions`)).at(-1);
  expect(last).toMatchObject({ version: 4, tests_forced: ['big payments ask twice'] });
  await panel().getByRole('switch', { name: 'Deploy as shadow', checked: false }).waitFor();
}, 180_000);

it('the org hooks editor: its tests run against the live hooks, the diff of two versions, a shadow deployed and discarded', async () => {
  const block = { class_hooks: [{ name: 'read_only_guard' }] };
  const cases = [
    { name: 'reads go through', tool: 'oa__get_purchase', args: { id: 'PO-1' }, expect: { decision: 'allow' } },
  ];
  await api('/api/org/hooks/tests', { method: 'PUT', body: { cases } });
  await page.goto('/admin/hooks');
  await page.getByRole('heading', { name: 'Org hooks' }).waitFor({ timeout: 60_000 });

  // Tests: the stored case runs against the live org hooks.
  await tab('Tests');
  await panel().getByTestId('saved-cases').filter({ hasText: '1 saved test case' }).waitFor();
  expect(await panel().getByLabel('Test cases (JSON)').inputValue()).toContain('reads go through');
  await panel().getByRole('button', { name: 'Run against the live policy' }).click();
  await panel().getByText('All 1 passed (live policy)').waitFor();
  await expectAccessible(page, 'org tests', PANEL);

  // Two saves (made through the API; the tests pass on both) and the diff between them.
  await api('/api/org/hooks', {
    method: 'PUT',
    body: { class_hooks: [{ name: 'result_truncate', config: { max_chars: 4000 } }] },
  });
  await api('/api/org/hooks', { method: 'PUT', body: { ...block, comment: 'guard' } });
  await tab('History');
  const versions = panel().getByRole('table', { name: 'Policy versions' });
  await versions.getByText('guard').waitFor();
  const list = (await api('/api/org/hooks/versions')) as Array<{ version: number }>;
  const [prev, last] = list.slice(-2).map((v) => String(v.version));
  await panel().getByRole('combobox', { name: 'Diff from' }).click();
  await page.getByRole('option', { name: `Version ${prev}`, exact: true }).click();
  await panel().getByRole('combobox', { name: 'Diff to' }).click();
  await page.getByRole('option', { name: `Version ${last}`, exact: true }).click();
  await panel()
    .getByRole('table', { name: `Changes from version ${prev} to ${last}` })
    .getByText('/class_hooks')
    .first()
    .waitFor();
  await expectAccessible(page, 'org history', PANEL);

  // Shadow: deployed from the switch, then discarded from it.
  await tab('Shadow');
  const shadowSwitch = panel().getByRole('switch', { name: 'Deploy as shadow' });
  await shadowSwitch.click();
  await panel()
    .getByText(/Shadow deployed .* beside version/)
    .waitFor();
  await panel().getByRole('region', { name: 'Shadow report' }).waitFor();
  await expectAccessible(page, 'org shadow', PANEL);
  await shadowSwitch.click();
  await page.getByText('Shadow discarded').waitFor();
  await panel()
    .getByText(/Shadow deployed/)
    .waitFor({ state: 'detached' });
  await api('/api/org/hooks', { method: 'PUT', body: {} });
}, 180_000);
