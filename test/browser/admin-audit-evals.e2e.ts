import { readFileSync } from 'node:fs';
import pg from 'pg';
import type { Browser, Page } from 'playwright-core';
import { expectAccessible } from '../support/axe.js';
import { apiToken, devSignIn, newPerson, screenshot, startConsole } from '../support/browser.js';
import type { ServerProcess } from '../support/server-process.js';

/**
 * Issue #31 gaps 5 and 8, as an admin does them in the console against the built server: the hash-chained audit
 * trail (filtered, verified, a config change's diff, exported whole by the server's stream), and the eval center.
 */
let server: ServerProcess;
let browser: Browser;
let databaseUrl: string;
let close: () => Promise<void>;
let page: Page;
let headers: Record<string, string>;
const ADMIN = { sub: 'demo-admin', org: 'demo', roles: ['admin'] };
const TOGGLES = 130;

beforeAll(async () => {
  ({ server, browser, databaseUrl, close } = await startConsole());
  const person = await newPerson(browser, server.url);
  person.context.setDefaultTimeout(30_000); // a loaded CI machine: waits are for the page, not timing asserts
  page = person.page;
  await devSignIn(page, ADMIN);
  headers = { authorization: `Bearer ${await apiToken(server.url, ADMIN)}`, 'content-type': 'application/json' };
}, 120_000);

afterAll(() => close?.());

const api = async (path: string, init: RequestInit = {}) => {
  const res = await fetch(`${server.url}${path}`, { ...init, headers });
  expect(res.ok).toBe(true);
  return res;
};

/** Every event the API lists for a query, all pages: what an export of the same range must hold. */
async function allSeqs(query: string): Promise<number[]> {
  const seqs: number[] = [];
  for (let cursor = ''; ;) {
    const body = (await (
      await api(`/api/audit/events?${query}&limit=500${cursor ? `&cursor=${cursor}` : ''}`)
    ).json()) as {
      items: Array<{ seq: number }>;
      next_cursor: string | null;
    };
    seqs.push(...body.items.map((e) => e.seq));
    if (!body.next_cursor) return seqs.sort((a, b) => a - b);
    cursor = body.next_cursor;
  }
}

it('an admin filters the audit trail to a range, sees a config change as a diff, verifies the chain (intact, then the broken link) and exports every event of the range', async () => {
  // More configuration changes than one screen's page (100): the read-only switch flipped back and forth.
  const start = new Date();
  start.setSeconds(0, 0);
  for (let i = 0; i < TOGGLES; i++)
    await api('/api/org/read-only', { method: 'PUT', body: JSON.stringify({ read_only: i % 2 === 0 }) });

  await page.getByRole('link', { name: 'Audit log' }).click();
  const local = `${start.getFullYear()}-${String(start.getMonth() + 1).padStart(2, '0')}-${String(start.getDate()).padStart(2, '0')}T${String(start.getHours()).padStart(2, '0')}:${String(start.getMinutes()).padStart(2, '0')}`;
  await page.getByLabel('From').fill(local);
  await page.getByRole('combobox', { name: 'Kind' }).click();
  await page.getByRole('option', { name: 'Configuration changes' }).click();
  const table = page.getByRole('table', { name: 'Audit events' });
  await page.getByRole('status').filter({ hasText: '100 events loaded; older ones remain' }).waitFor();
  const expected = await allSeqs(`kind=config&from=${encodeURIComponent(start.toISOString())}`);
  expect(expected.length).toBeGreaterThanOrEqual(TOGGLES);

  // The newest change: read_only true -> false (the last flip, i = 129, set false), as a diff.
  const newest = table.locator('tbody tr[data-action="org.updated"]').first();
  await newest.getByRole('button', { name: /^Show #/ }).click();
  const diff = page.getByRole('table', { name: 'Changes' }).locator('tr[data-path="read_only"]');
  expect((await diff.innerText()).replace(/\s+/g, ' ').trim()).toBe('read_only true false');
  await expectAccessible(page, 'audit trail with a diff open');
  await screenshot(page, 'admin-audit-trail');

  await page.getByRole('button', { name: 'Verify chain' }).click();
  await page.locator('[data-testid="chain-result"][data-valid="true"]').waitFor();
  expect(await page.getByTestId('chain-result').innerText()).toMatch(/The chain holds\s+\d+ events? checked/);

  // Everything in the range, not the 100 rows on screen: the server's stream, as CSV and as JSON Lines.
  const [csvDownload] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export CSV' }).click(),
  ]);
  expect(csvDownload.suggestedFilename()).toBe('audit-events.csv');
  const csv = readFileSync(await csvDownload.path(), 'utf8')
    .trim()
    .split(/\r?\n/);
  expect(csv[0]).toBe('seq,occurred_at,kind,action,entity_type,entity_id,actor,payload,prev_hash,hash');
  expect(csv.slice(1).map((l) => Number(l.split(',')[0]))).toEqual(expected);
  const [jsonl] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export JSONL' }).click(),
  ]);
  const lines = readFileSync(await jsonl.path(), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { seq: number; kind: string });
  expect(lines.map((e) => e.seq)).toEqual(expected);
  expect(new Set(lines.map((e) => e.kind))).toEqual(new Set(['config']));

  // Someone edits a recorded event in the database: the next verification names the first link that no longer holds.
  const sql = new pg.Client({ connectionString: databaseUrl });
  await sql.connect();
  const tampered = expected[5];
  // Flipped, not set: every other toggle already recorded false, and writing the same value changes nothing.
  const flipped = await sql.query(
    `UPDATE audit_events SET payload = jsonb_set(payload, '{after,read_only}', to_jsonb(NOT (payload #>> '{after,read_only}')::boolean))
      WHERE seq = $1 AND payload #> '{after,read_only}' IS NOT NULL`,
    [tampered],
  );
  expect(flipped.rowCount).toBe(1);
  await sql.end();
  await page.getByRole('button', { name: 'Verify chain' }).click();
  const broken = page.locator('[data-testid="chain-result"][data-valid="false"]');
  await broken.waitFor();
  expect(await broken.innerText()).toContain(`First broken link: #${tampered} org.updated`);
  await expectAccessible(page, 'audit trail, chain broken');
  await screenshot(page, 'admin-audit-verify-broken');
}, 180_000);

it('an admin starts an eval of two cases with fields only and reads each case result', async () => {
  await page.getByRole('link', { name: 'Evals' }).click();
  const form = page.getByRole('form', { name: 'New eval' });
  await form.getByRole('combobox', { name: 'Agent' }).click();
  await page.getByRole('option', { name: 'demo-buyer' }).click();
  await form.getByLabel('Case 1 message').fill('Pay the open purchase orders');
  await form.getByLabel('Case 1: calls tool').fill('oa__purchase_pay');
  await form.getByLabel('Case 1: answer contains').fill('handled');
  await form.getByRole('button', { name: 'Add case' }).click();
  await form.getByLabel('Case 2 message').fill('Refund PO-1001');
  await form.getByLabel('Case 2: answer contains').fill('refunded');
  await expectAccessible(page, 'new eval form');
  await form.getByRole('button', { name: 'Start eval' }).click();

  await page.locator('[data-testid="eval-status"][data-status="completed"]').waitFor({ timeout: 30_000 });
  expect(await page.getByTestId('eval-status').innerText()).toMatch(/1 of 2 cases passed/);
  const cases = page.getByTestId('eval-case');
  expect(await cases.count()).toBe(2);
  expect(await cases.nth(0).getAttribute('data-passed')).toBe('true');
  expect(await cases.nth(0).innerText()).toMatch(/oa__purchase_pay .*PO-1001.* · simulated/);
  expect(await cases.nth(1).getAttribute('data-passed')).toBe('false');
  expect(await cases.nth(1).innerText()).toMatch(/refunded/);
  await expectAccessible(page, 'eval results');
  await screenshot(page, 'admin-eval-results');

  await page.getByRole('link', { name: 'All evals' }).click();
  const row = page.getByRole('table', { name: 'Evals' }).getByRole('row').filter({ hasText: 'demo-buyer' });
  await row.filter({ hasText: '1 of 2' }).waitFor();
  await expectAccessible(page, 'evals list');
}, 120_000);
