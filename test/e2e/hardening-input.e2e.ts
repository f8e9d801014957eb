import pg from 'pg';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** Bad input tried as a user would send it: always a 4xx naming the problem, never a 500, nothing half-written. */
describe('input hardening', () => {
  let t: TestApp;
  let admin: string;
  let agentId: string;
  let sql: pg.Client;

  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.token('root', 'acme', ['admin']);
    const agent = await t.request('POST', '/api/agents', {
      token: admin,
      body: { name: 'a', model_config_json: { model: { provider: 'scripted', script: [{ content: 'ok' }] } } },
    });
    agentId = agent.body.id;
    sql = new pg.Client({ connectionString: t.databaseUrl });
    await sql.connect();
  });
  afterAll(async () => {
    await sql.end();
    await t.close();
  });

  const count = async (table: string) =>
    (await sql.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n as number;

  describe('NUL characters', () => {
    const NUL = 'a\u0000b';
    it.each([
      [
        'POST',
        '/api/agents',
        () => ({ name: NUL, model_config_json: { model: { provider: 'scripted', script: [{ content: 'x' }] } } }),
        /body\.name contains a NUL/,
      ],
      ['POST', '/api/chat', () => ({ agent_id: agentId, message: NUL }), /body\.message contains a NUL/],
      [
        'POST',
        '/api/connectors',
        () => ({ name: 'c', base_url: 'http://127.0.0.1:1', actions: [{ name: NUL, method: 'GET', path: '/x' }] }),
        /body\.actions\[0\]\.name contains a NUL/,
      ],
      ['POST', '/api/channels', () => ({ type: 'inbox', name: NUL }), /body\.name contains a NUL/],
      ['PUT', '/api/users/root/identities', () => ({ feishu_open_id: NUL }), /body\.feishu_open_id contains a NUL/],
      ['POST', '/api/workflows', () => ({ name: NUL, definition: { nodes: [] } }), /body\.name contains a NUL/],
      ['POST', '/api/hooks/dry-run', () => ({ model_config_json: {}, tool: NUL }), /body\.tool contains a NUL/],
      ['GET', '/api/users/a%00b', () => undefined, /params\.sub contains a NUL/],
      ['GET', '/api/confirmations?status=%00', () => undefined, /query\.status contains a NUL/],
    ])('%s %s -> 400 naming the field', async (method, path, body, message) => {
      const res = await t.request(method, path, { token: admin, body: body() });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
    });

    it('an unpaired surrogate (found by the fuzz suite: 500 on /api/chat) is a 400 naming the field', async () => {
      const res = await t.request('POST', '/api/chat', {
        token: admin,
        body: '{"agent_id":"' + agentId + '","message":"\\ud800"}',
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/body\.message contains an unpaired UTF-16 surrogate/);
    });

    it('/api/chat with a NUL leaves no conversation or run behind', async () => {
      const before = [await count('conversations'), await count('agent_runs')];
      const res = await t.request('POST', '/api/chat', {
        token: admin,
        body: { agent_id: agentId, message: `hi\u0000` },
      });
      expect(res.status).toBe(400);
      expect([await count('conversations'), await count('agent_runs')]).toEqual(before);
    });
  });

  describe('nesting and size', () => {
    // Written as text: JSON.stringify itself cannot produce the deepest of these.
    const nested = (depth: number) => `${'{"a":'.repeat(depth)}"leaf"${'}'.repeat(depth)}`;

    it.each([100, 20_000])('JSON nested %i deep is a 400 naming the limit', async (depth) => {
      const body = `{"name":"deep","model_config_json":{"model":{"provider":"scripted","script":[{"content":"x"}]},"x":${nested(depth)}}}`;
      const res = await t.request('POST', '/api/agents', { token: admin, body });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/nested deeper than 64 levels/);
      expect((await t.request('GET', '/api/health')).status).toBe(200);
    });

    it('malformed JSON is a JSON 400 without a stack trace', async () => {
      const res = await t.request('POST', '/api/agents', {
        token: admin,
        body: '{"name": ',
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
      expect(res.body.statusCode).toBe(400);
      expect(res.text).not.toMatch(/at \w+ \(|node_modules/);
    });
  });

  it('a YAML alias bomb in hooks is a 400 naming the alias budget, at save and in a dry run', async () => {
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
      'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
      'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
      'hooks: [*e]',
    ].join('\n');
    const model_config_json = { model: { provider: 'scripted', script: [{ content: 'x' }] }, hooks: { yaml: bomb } };
    const save = await t.request('POST', '/api/agents', { token: admin, body: { name: 'bomb', model_config_json } });
    expect(save.status).toBe(400);
    expect(save.body.message).toMatch(/alias/i);
    const dry = await t.request('POST', '/api/hooks/dry-run', { token: admin, body: { model_config_json, tool: 'x' } });
    expect(dry.status).toBe(400);
    expect(dry.body.message).toMatch(/alias/i);
  });

  describe('strict agent config', () => {
    it("the original system's names are a 400 naming each key with where it lives in Warden; nothing is saved", async () => {
      const before = await count('agents');
      const res = await t.request('POST', '/api/agents', {
        token: admin,
        body: {
          name: 'migrated',
          model_config_json: {
            model: { provider: 'scripted', script: [{ content: 'x' }], api_key: 'sk-live' },
            confirmation_mode: 'channel_only',
            approval_channel_id: 'c1',
            confirmation_approver_scope: 'org_admins',
            confirmation: { channel: 'c1' },
          },
        },
      });
      expect(res.status).toBe(400);
      expect(res.body.problems).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            /^model_config_json\.confirmation_mode: unknown key \(Warden has no confirmation_mode: the card goes to confirmation\.channel_id/,
          ),
          'model_config_json.approval_channel_id: unknown key (use confirmation.channel_id)',
          'model_config_json.confirmation_approver_scope: unknown key (use confirmation.approver_scope)',
          expect.stringMatching(/^model_config_json\.model\.api_key: unknown key \(keys are never stored/),
          expect.stringMatching(
            /^model_config_json\.confirmation\.channel: unknown key \(expected one of channel_id, /,
          ),
        ]),
      );
      expect(await count('agents')).toBe(before);
    });
  });
});
