import path from 'node:path';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Break 13 of #28: a YAML hook could be named `confirmation_gate` (or any built-in's name); traces and dry-run then
 * showed two. Built-in names (every hook of the catalog, and `args_schema`) are reserved: 400 naming the name.
 */
describe('built-in hook names are reserved', () => {
  let t: TestApp;
  let admin: string;

  const yamlNamed = (name: string) =>
    ['hooks:', `  - name: ${name}`, '    event: PreToolUse', '    run: ./deny-prod-deletes.sh'].join('\n');
  const saveAgent = (name: string) =>
    t.request('POST', '/api/agents', {
      token: admin,
      body: {
        name: `agent-${name}`,
        instructions: 'x',
        model_config_json: {
          model: { provider: 'scripted', script: [{ content: 'ok' }] },
          hooks: { yaml: yamlNamed(name) },
        },
      },
    });

  beforeAll(async () => {
    t = await startTestApp({ HOOKS_DIR: path.resolve('test/fixtures/hooks') });
    admin = await t.token('alice', 'acme', ['admin']);
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each(['confirmation_gate', 'audit_log', 'read_only_guard', 'args_schema'])(
    'an agent YAML hook named "%s" is refused with a 400 naming it; nothing is saved',
    async (name) => {
      const res = await saveAgent(name);
      expect(res.status).toBe(400);
      expect(res.body.problems).toEqual([expect.stringContaining(`hook name "${name}" is reserved`)]);
      const agents = await t.request('GET', '/api/agents', { token: admin });
      expect(agents.body.map((a: { name: string }) => a.name)).not.toContain(`agent-${name}`);
    },
  );

  it('an org YAML hook named after a built-in is refused the same way; a free name is accepted', async () => {
    const refused = await t.request('PUT', '/api/org/hooks', {
      token: admin,
      body: { yaml: yamlNamed('confirmation_gate') },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.problems).toEqual([expect.stringContaining('hook name "confirmation_gate" is reserved')]);
    expect((await t.request('GET', '/api/org/hooks', { token: admin })).body.hooks).toEqual({});

    expect(
      (await t.request('PUT', '/api/org/hooks', { token: admin, body: { yaml: yamlNamed('echo-policy') } })).status,
    ).toBe(200);
    expect((await saveAgent('my-echo')).status).toBe(201);
  });

  it('dry-run of such a config names the problem instead of showing two gates', async () => {
    const res = await t.request('POST', '/api/hooks/dry-run', {
      token: admin,
      body: {
        model_config_json: { hooks: { yaml: yamlNamed('confirmation_gate') } },
        tool: 'oa__purchase_pay',
        args: {},
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.problems).toEqual([expect.stringContaining('hook name "confirmation_gate" is reserved')]);
  });
});
