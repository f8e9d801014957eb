import { until } from '../support/eventually.js';
import type { ServerProcess } from '../support/server-process.js';
import { startProcesses, type ProcessHarness } from './process-harness.js';

const EVIL_FORM = { type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } }, required: ['code'] };
/** 30 characters: a backtracking engine tries about 2^30 ways to split the a's before it gives up on the "b". */
const EVIL_ANSWER = `${'a'.repeat(30)}b`;

/**
 * Issue #29 break 9: regexes written by a model or a user (JSON-schema `pattern` of an ask_human form) ran on the
 * backtracking engine, so a member's short answer froze the whole server. A server process, so that a frozen event
 * loop fails this test by its timeout instead of freezing the test runner with it.
 */
describe('ReDoS: model-written patterns run on RE2 (server process, PostgreSQL)', () => {
  let h: ProcessHarness | undefined;
  let server: ServerProcess;

  beforeAll(async () => {
    h = await startProcesses();
    server = await h.start();
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  });

  const askingAgent = async (name: string, form: Record<string, unknown>): Promise<string> => {
    const agent = await h!.api(server, 'POST', '/api/agents', {
      name,
      model_config_json: {
        tools: ['ask_human'],
        confirmation: { approvers: ['org_admins'] },
        model: {
          provider: 'scripted',
          script: [
            { tool_calls: [{ name: 'ask_human', args: { question: 'Your code?', form } }] },
            { content: 'thanks' },
          ],
        },
      },
    });
    expect(agent.status).toBe(201);
    // The run outlives the connection: the question is read from the inbox.
    void fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h!.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent_id: agent.body.id, message: 'ask me' }),
    })
      .then((r) => r.text())
      .catch(() => ''); // a parked run's stream may end without a last chunk
    return until('a pending question', async () => {
      const rows = (await h!.api(server, 'GET', '/api/confirmations?status=pending')).body as Array<
        Record<string, any>
      >;
      return rows.find((r) => r.tool === 'ask_human' && r.agent_name === name)?.id as string | undefined;
    });
  };
  const answer = (id: string, value: unknown) =>
    h!.api(server, 'POST', `/api/confirmations/${id}/decision`, { decision: 'approve', answer: value });

  it('a pattern RE2 cannot run (a backreference) is refused with a 400 naming it; nothing is recorded', async () => {
    const id = await askingAgent('backref-form', {
      type: 'object',
      properties: { code: { type: 'string', pattern: '^(a)\\1$' } },
      required: ['code'],
    });
    const refused = await answer(id, { code: 'aa' });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('pattern "^(a)\\1$"');
    expect((await h!.api(server, 'GET', `/api/confirmations/${id}`)).body).toMatchObject({
      status: 'pending',
      votes: [],
    });
  });

  it('conditions may not call CEL matches() (a backtracking regex on model-chosen args): a 400 naming it', async () => {
    const connector = await h!.api(server, 'POST', '/api/connectors', {
      name: 'oa',
      base_url: 'http://127.0.0.1:9',
      actions: [
        { name: 'pay', method: 'POST', path: '/pay', requires_confirmation_when: 'args.memo.matches("^(a+)+$")' },
      ],
    });
    expect(connector.status).toBe(400);
    expect(connector.body.message).toMatch(/requires_confirmation_when .*matches\(\) is not available/);
    const workflow = await h!.api(server, 'POST', '/api/workflows', {
      name: 'branchy',
      definition: {
        nodes: [
          { id: 'start', type: 'start' },
          { id: 'check', type: 'condition', expression: 'inputs.memo.matches("^(a+)+$")' },
          { id: 'end', type: 'end' },
        ],
        edges: [
          { from: 'start', to: 'check' },
          { from: 'check', to: 'end' },
        ],
      },
    });
    expect(workflow.status).toBe(400);
    expect(workflow.body.message).toMatch(/expression: matches\(\) is not available/);
  });

  it('an answer built to backtrack is refused by the pattern while the server keeps answering other requests', async () => {
    const id = await askingAgent('evil-form', EVIL_FORM);
    const [evil, health] = await Promise.all([answer(id, { code: EVIL_ANSWER }), fetch(`${server.url}/api/health`)]);
    expect(health.status).toBe(200);
    expect(evil.status).toBe(400);
    expect(evil.body.message).toMatch(/args\.answer\.code must match pattern "\^\(a\+\)\+\$"/);
    expect((await answer(id, { code: 'aaaa' })).status).toBe(200);
  });
});
