import type { Browser, Page } from 'playwright-core';
import { seriousA11yViolations } from '../support/axe.js';
import { apiToken, devSignIn, newPerson, screenshot, startConsole, unnamedControls } from '../support/browser.js';
import type { ServerProcess } from '../support/server-process.js';

/**
 * The workflow designer (#31 gap 2), as a `designer` (not an admin) uses it: a workflow drawn on the canvas without
 * typing JSON, run, its human task answered in the inbox, the run watched to its end on the same canvas; the main
 * actions by keyboard; axe-core on the designer and the run view.
 */
let server: ServerProcess;
let browser: Browser;
let close: () => Promise<void>;
let page: Page;
const DESIGNER = { sub: 'dana', org: 'demo', roles: ['designer'] };

beforeAll(async () => {
  // A slow machine (CI under load) may take more than the default 30 s to boot the server.
  ({ server, browser, close } = await startConsole({}, { timeoutMs: 120_000 }));
  const admin = await apiToken(server.url, { sub: 'setup-admin', org: 'demo', roles: ['admin'] });
  const res = await fetch(`${server.url}/api/agents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'summariser',
      instructions: 'Summarise the purchase order.',
      model_config_json: {
        model: { provider: 'scripted', script: [{ content: 'PO-77: 12 laptops, within budget.' }] },
      },
    }),
  });
  expect(res.status).toBe(201);
  const person = await newPerson(browser, server.url, { width: 1440, height: 900 });
  // The run's steps (an agent run, a human task) go through the server: a loaded machine gets more than 10 s.
  person.context.setDefaultTimeout(30_000);
  page = person.page;
  await devSignIn(page, DESIGNER);
}, 180_000);

afterAll(async () => {
  await close?.();
});

const node = (id: string) => page.getByTestId(`node-${id}`);

/** axe-core's serious and critical findings on the designer, none allowed. */
async function expectAccessible(state: string): Promise<void> {
  const found = await seriousA11yViolations(page);
  expect(found.map((v) => `${state}: ${v.impact} ${v.id} (${v.help}) at ${v.targets.join(' | ')}`)).toEqual([]);
}

it('a designer draws start → agent → human → end without JSON, runs it, answers the human task and watches it finish', async () => {
  // A designer is no admin: no agent, connector or org screens.
  expect(await page.getByRole('link', { name: 'Agents' }).count()).toBe(0);
  await page.getByRole('link', { name: 'Workflows' }).click();
  await page.getByRole('link', { name: 'New workflow' }).click();
  await page.getByLabel('Workflow name').fill('review-po');
  // The start node is selected: it names the run's inputs.
  const inputs = page.getByRole('combobox', { name: 'Run inputs' });
  await inputs.fill('po');
  await inputs.press('Enter');

  await page.getByRole('button', { name: 'Add agent node' }).click();
  // Drawn but not configured: the server's check turns it red with its problem.
  await page.locator('[data-testid="node-agent_1"][data-invalid="true"]').waitFor();
  await node('agent_1').getByRole('note').filter({ hasText: 'needs agent_id' }).waitFor();
  await page.getByRole('combobox', { name: 'Agent', exact: true }).click();
  await page.getByRole('option', { name: 'summariser' }).click();
  const prompt = page.getByRole('combobox', { name: 'Prompt' });
  await prompt.pressSequentially('Summarise {{in');
  await page.getByRole('option', { name: '{{inputs.po}}' }).waitFor();
  await prompt.press('Enter');
  expect(await prompt.inputValue()).toBe('Summarise {{inputs.po}}');

  await page.getByRole('button', { name: 'Add human node' }).click();
  const question = page.getByRole('combobox', { name: 'Question' });
  await question.fill('Pay {{inputs.po}}? The agent says: ');
  await question.press('End');
  await question.pressSequentially('{{nodes.');
  await page.getByRole('option', { name: '{{nodes.agent_1.output}}' }).click();
  await page.getByRole('button', { name: 'Add form field' }).click();
  await page.getByLabel('Field 1 name').fill('approved');
  await page.getByLabel('Field 1 label').fill('Approve the payment');
  await page.getByRole('combobox', { name: 'Field 1 type', exact: true }).click();
  await page.getByRole('option', { name: 'Yes / no' }).click();
  await page.getByRole('button', { name: 'Add form field' }).click();
  await page.getByLabel('Field 2 name').fill('note');
  await page.getByLabel('Field 2 label').fill('Note');
  await page.getByLabel('Field 2 required').uncheck();
  await page.getByRole('combobox', { name: 'Who answers', exact: true }).click();
  await page.getByRole('option', { name: 'The person who started the run (default)' }).click();

  await page.getByRole('button', { name: 'Add end node' }).click();
  await page.getByRole('button', { name: 'Auto-layout' }).click();
  await page.getByTestId('workflow-check').filter({ hasText: 'Ready to save' }).waitFor();
  expect(await page.locator('[data-invalid="true"]').count()).toBe(0);
  expect(await unnamedControls(page)).toEqual([]);
  await screenshot(page, 'workflow-designer');
  await expectAccessible('designer canvas');

  // The advanced tab holds the JSON the canvas wrote: the form as JSON Schema, the agent by id.
  await page.getByRole('tab', { name: 'Advanced (JSON)' }).click();
  const json = JSON.parse(await page.getByLabel('Definition (JSON)').inputValue());
  expect(json.edges.map((e: { from: string; to: string }) => `${e.from}->${e.to}`)).toEqual([
    'start->agent_1',
    'agent_1->human_1',
    'human_1->end',
  ]);
  expect(json.nodes[2].form).toEqual({
    type: 'object',
    properties: {
      approved: { title: 'Approve the payment', type: 'boolean' },
      note: { title: 'Note', type: 'string' },
    },
    required: ['approved'],
  });
  await page.getByRole('tab', { name: 'Canvas' }).click();

  await page.getByRole('button', { name: 'Save workflow' }).click();
  await page.getByText('Saved review-po').waitFor();
  await page.getByLabel('Input po').fill('PO-77');
  await page.getByRole('button', { name: 'Start run' }).click();

  // The run on the same canvas: the human node waits for a person.
  await page.locator('[data-testid="node-human_1"][data-status="waiting"]').waitFor();
  await page.getByTestId('node-status-human_1').filter({ hasText: 'waiting for a human' }).waitFor();
  await page.locator('[data-testid="node-agent_1"][data-status="completed"]').click();
  const details = page.getByRole('region', { name: 'Run of node agent_1' });
  await details.getByText('Summarise {{inputs.po}}').waitFor();
  await details.getByText('within budget').waitFor();
  await screenshot(page, 'workflow-run-waiting');
  await expectAccessible('run view, waiting');
  const runUrl = page.url();

  await page.getByRole('link', { name: 'Open the approvals inbox' }).click();
  const card = page.getByTestId('pending-confirmation').filter({ hasText: 'Pay PO-77?' });
  await card.getByText('within budget').first().waitFor();
  await card.getByLabel('Approve the payment').check();
  await card.getByLabel('Note').fill('ok to pay');
  await card.getByRole('button', { name: 'Answer' }).click();
  await page.getByTestId('inbox-empty').waitFor();

  await page.goto(runUrl);
  await page.getByTestId('workflow-run-status').filter({ hasText: 'completed' }).waitFor();
  await page.locator('[data-testid="node-end"][data-status="completed"]').waitFor();
  await node('human_1').click();
  await page.getByRole('region', { name: 'Run of node human_1' }).getByText('ok to pay').first().waitFor();
  await screenshot(page, 'workflow-run-done');
  await expectAccessible('run view, done');

  // The workflow's past runs list this one.
  await page.getByRole('link', { name: 'Back to the designer and past runs' }).click();
  await page.getByRole('table', { name: 'Past runs' }).getByText('completed').waitFor();
}, 300_000);

it("the designer's main actions work with the keyboard: add, select, connect, delete, lay out", async () => {
  await page.goto('/workflows/new');
  await page.getByLabel('Workflow name').fill('keyboard-wf');
  const press = async (name: string) => {
    await page.getByRole('button', { name, exact: true }).focus();
    await page.keyboard.press('Enter');
  };
  await press('Add end node');
  await page.getByTestId('rf__edge-start->end').waitFor({ state: 'attached' });
  // A node on the canvas: Tab to it, Enter selects it and opens its panel.
  await page.locator('.react-flow__node[data-id="start"]').focus();
  await page.keyboard.press('Enter');
  await page.getByRole('region', { name: 'Node start' }).waitFor();
  await press('Add connector node');
  await page.getByRole('region', { name: 'Node connector_1' }).waitFor();
  // Connect to: a select and a button, by keyboard (chooseConnectTarget).
  await chooseConnectTarget('end (end)');
  await page.getByRole('button', { name: 'Connect', exact: true, disabled: false }).waitFor();
  await press('Connect');
  await page.getByTestId('rf__edge-connector_1->end').waitFor({ state: 'attached' });
  // Delete: select the node with the keyboard (its panel opens), then the Delete key.
  await page.locator('.react-flow__node[data-id="connector_1"]').focus();
  await page.keyboard.press('Enter');
  await page.locator('.react-flow__node.selected[data-id="connector_1"]').waitFor();
  await page.keyboard.press('Delete');
  await page.getByTestId('node-connector_1').waitFor({ state: 'detached' });
  expect(await page.getByTestId('rf__edge-connector_1->end').count()).toBe(0);
  await press('Auto-layout');
  await press('Save workflow');
  await page.getByText('Saved keyboard-wf').waitFor();
}, 120_000);

it("a target chosen in one node's 'Connect to' does not follow to the next node selected", async () => {
  await page.goto('/workflows/new');
  await page.getByLabel('Workflow name').fill('panel-per-node');
  await page.getByRole('button', { name: 'Add end node', exact: true }).click();
  await page.getByRole('button', { name: 'Add connector node', exact: true }).click();
  await page.getByRole('button', { name: 'Add connector node', exact: true }).click();
  await page.getByRole('region', { name: 'Node connector_2' }).waitFor();
  await selectNode('connector_1');
  await chooseConnectTarget('end (end)');
  const target = page.getByRole('combobox', { name: 'Connect to', exact: true });
  // Chosen but not connected; the designer moves to another node: its panel starts with nothing chosen, so its
  // Connect cannot draw an edge the designer picked for connector_1.
  await selectNode('connector_2');
  expect(await target.inputValue()).toBe('');
  expect(await page.getByRole('button', { name: 'Connect', exact: true }).isDisabled()).toBe(true);
}, 120_000);

/**
 * Chooses `label` in the selected node's 'Connect to' by keyboard. Each key waits for what a person would see before
 * the next one (the list open, the option highlighted, the choice shown): pressed blind, Enter could land before the
 * list opened (seen once in CI). On a loaded CI machine the list was seen both not opening on the first ArrowDown and
 * closing right after it opened (a redraw of the panel; a click on the option then found it gone): each attempt starts
 * again from the focus, a bounded number of times.
 */
async function chooseConnectTarget(label: string): Promise<void> {
  const target = page.getByRole('combobox', { name: 'Connect to', exact: true });
  const highlighted = page.locator('[role="option"][data-combobox-selected]', { hasText: label });
  const chosen = page.locator(`input[value="${label}"]`);
  const seen = (l: typeof chosen) =>
    l.waitFor({ timeout: 5_000 }).then(
      () => true,
      () => false,
    );
  const option = page.getByRole('option', { name: label });
  for (let i = 0; i < 6 && !(await chosen.isVisible()); i++) {
    await target.focus();
    await page.keyboard.press('ArrowDown');
    if (!(await seen(option))) continue;
    // The list opens on its first option highlighted; further arrows walk down to `label`.
    for (let k = 0; k < 5 && !(await highlighted.isVisible()); k++) await page.keyboard.press('ArrowDown');
    if (await seen(highlighted)) {
      await page.keyboard.press('Enter');
      await seen(chosen);
    }
  }
  await chosen.waitFor();
}

/**
 * Selects a node on the canvas as a keyboard user does (focus, Enter) and waits for its panel. A click can land on
 * another node: new nodes are placed near each other (clean-clone CI saw the click on connector_1 open no panel).
 */
async function selectNode(id: string): Promise<void> {
  const panel = page.getByRole('region', { name: `Node ${id}` });
  // Bounded retries from the focus, as in chooseConnectTarget: a redraw can take the focus between the two keys.
  for (let i = 0; i < 5 && !(await panel.isVisible()); i++) {
    await page.locator(`.react-flow__node[data-id="${id}"]`).focus();
    await page.keyboard.press('Enter');
    await panel.waitFor({ timeout: 5_000 }).catch(() => undefined);
  }
  await panel.waitFor();
}
