import type { FakeSlack } from '../fakes/fake-slack.js';
import { until } from '../support/eventually.js';
import type { TestApp } from '../support/test-app.js';
import { OA_ACTIONS } from './runtime-helpers.js';

type Res = Awaited<ReturnType<TestApp['request']>>;

/** The app, its tokens and the fake Slack the identity-link codes go to. */
export interface RouteCaseContext {
  t: TestApp;
  admin: string;
  adminUserId: string;
  /** A member (no admin role): links his own chat account with proof. */
  bob: string;
  bobUserId: string;
  orgId: string;
  slack: FakeSlack;
}

/** Ids made by a case's setup (their own events are not counted), e.g. `{ id }`. */
type Made = Record<string, string>;

/** How one configuration route is exercised, and what its single audit event must name. */
export interface ConfigRouteCase {
  setup?: (c: RouteCaseContext) => Promise<Made>;
  act: (c: RouteCaseContext, made: Made) => Promise<Res>;
  /** The object the event is about: its entity_type and entity_id. */
  entity: (c: RouteCaseContext, made: Made, res: Res) => { type: string; id: string };
  /** The user the event must name; the admin when absent. */
  actor?: (c: RouteCaseContext) => string;
  /** Puts things back after the event was checked (its own events are not counted). */
  cleanup?: (c: RouteCaseContext) => Promise<void>;
  /**
   * What a `designer` (no admin role) gets from `act`: `allowed` for building workflows, `own` for a route about the
   * caller's own account (acted with another member's token); absent: 403 (designer-role.e2e.ts).
   */
  designer?: 'allowed' | 'own';
}

/** Every secret any case stores: none may appear in any audit event. */
export const SECRETS = {
  connector1: 'conn-header-SECRET-1',
  connector2: 'conn-header-SECRET-2',
  slackBot: 'xoxb-bot-SECRET-token',
  slackBot2: 'xoxb-bot-SECRET-token-2',
  slackSigning: 'slack-signing-SECRET',
  mcp1: 'mcp-bearer-SECRET-1',
  mcp2: 'mcp-bearer-SECRET-2',
  llmKey: 'sk-llm-SECRET-value',
  llmKey2: 'sk-llm-SECRET-value-2',
} as const;

// Nothing listens on port 9: connectors and MCP servers are saved without being reachable.
const NOWHERE = 'http://127.0.0.1:9';
let seq = 0;
const unique = (prefix: string) => `${prefix}${++seq}`;
// A policy test case on a built-in tool (every org has it): stored, not run.
const policyTestCase = (name: string) => ({
  name,
  tool: 'ask_human',
  args: { question: 'ok?' },
  expect: { decision: 'allow' },
});
const llmKeyBody = (name: string) => ({ name, api_key: SECRETS.llmKey, origin: 'https://api.openai.com' });

const created = async (res: Promise<Res>): Promise<string> => {
  const r = await res;
  if (r.status !== 201) throw new Error(`setup failed: ${r.status} ${r.text}`);
  return r.body.id as string;
};
const post = (c: RouteCaseContext, path: string, body: unknown) => c.t.request('POST', path, { token: c.admin, body });
const put = (c: RouteCaseContext, path: string, body: unknown) => c.t.request('PUT', path, { token: c.admin, body });
const del = (c: RouteCaseContext, path: string) => c.t.request('DELETE', path, { token: c.admin });

const agentBody = (name: string) => ({
  name,
  instructions: 'x',
  model_config_json: { model: { provider: 'scripted', script: [{ content: 'ok' }] } },
});
const connectorBody = (name: string, key: string) => ({
  name,
  base_url: NOWHERE,
  headers: { 'X-Api-Key': key },
  actions: OA_ACTIONS,
});
const slackBody = (c: RouteCaseContext, name: string) => ({
  type: 'slack',
  name,
  config: {
    bot_token: SECRETS.slackBot,
    signing_secret: SECRETS.slackSigning,
    channel: 'C-OPS',
    base_url: c.slack.apiUrl,
  },
});
const mcpBody = (name: string, token: string, overrides: Record<string, unknown>) => ({
  name,
  url: `${NOWHERE}/mcp`,
  headers: { Authorization: `Bearer ${token}` },
  tool_overrides: overrides,
});
const workflowBody = (name: string) => ({
  name,
  definition: {
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'end', type: 'end' },
    ],
    edges: [{ from: 'start', to: 'end' }],
  },
});
const byId = (type: string) => (_c: RouteCaseContext, made: Made) => ({ type, id: made.id });
const byBody = (type: string) => (_c: RouteCaseContext, _m: Made, res: Res) => ({ type, id: res.body.id as string });

/**
 * The routes that change configuration, keyed as `METHOD /api/path` exactly as the app's router holds them. A new
 * configuration route gets a case here (the enumeration test fails until it has one, and then until it is audited).
 */
export const CONFIG_ROUTE_CASES: Record<string, ConfigRouteCase> = {
  'POST /api/agents': { act: (c) => post(c, '/api/agents', agentBody(unique('agent'))), entity: byBody('agent') },
  'PUT /api/agents/:id': {
    setup: async (c) => ({ id: await created(post(c, '/api/agents', agentBody(unique('agent')))) }),
    act: (c, m) => put(c, `/api/agents/${m.id}`, agentBody(unique('renamed'))),
    entity: byId('agent'),
  },
  'DELETE /api/agents/:id': {
    setup: async (c) => ({ id: await created(post(c, '/api/agents', agentBody(unique('agent')))) }),
    act: (c, m) => del(c, `/api/agents/${m.id}`),
    entity: byId('agent'),
  },
  'POST /api/connectors': {
    act: (c) => post(c, '/api/connectors', connectorBody(unique('conn'), SECRETS.connector1)),
    entity: byBody('connector'),
  },
  'PUT /api/connectors/:id': {
    setup: async (c) => ({
      id: await created(post(c, '/api/connectors', connectorBody(unique('conn'), SECRETS.connector1))),
    }),
    act: (c, m) => put(c, `/api/connectors/${m.id}`, connectorBody(unique('conn'), SECRETS.connector2)),
    entity: byId('connector'),
  },
  'DELETE /api/connectors/:id': {
    setup: async (c) => ({
      id: await created(post(c, '/api/connectors', connectorBody(unique('conn'), SECRETS.connector1))),
    }),
    act: (c, m) => del(c, `/api/connectors/${m.id}`),
    entity: byId('connector'),
  },
  'POST /api/channels': {
    act: (c) => post(c, '/api/channels', slackBody(c, unique('chan'))),
    entity: byBody('channel'),
  },
  'PUT /api/channels/:id': {
    setup: async (c) => ({ id: await created(post(c, '/api/channels', slackBody(c, unique('chan')))) }),
    act: (c, m) => put(c, `/api/channels/${m.id}`, { name: unique('chan'), config: { bot_token: SECRETS.slackBot2 } }),
    entity: byId('channel'),
  },
  'DELETE /api/channels/:id': {
    setup: async (c) => ({ id: await created(post(c, '/api/channels', slackBody(c, unique('chan')))) }),
    act: (c, m) => del(c, `/api/channels/${m.id}`),
    entity: byId('channel'),
  },
  'POST /api/mcp-servers': {
    act: (c) =>
      post(c, '/api/mcp-servers', mcpBody(unique('mcp'), SECRETS.mcp1, { pay: { requires_confirmation: true } })),
    entity: byBody('mcp_server'),
  },
  'PUT /api/mcp-servers/:id': {
    setup: async (c) => ({
      id: await created(
        post(c, '/api/mcp-servers', mcpBody(unique('mcp'), SECRETS.mcp1, { pay: { requires_confirmation: true } })),
      ),
    }),
    // Removing the approval override is the change that widens power most.
    act: (c, m) => put(c, `/api/mcp-servers/${m.id}`, mcpBody(unique('mcp'), SECRETS.mcp2, {})),
    entity: byId('mcp_server'),
  },
  'DELETE /api/mcp-servers/:id': {
    setup: async (c) => ({ id: await created(post(c, '/api/mcp-servers', mcpBody(unique('mcp'), SECRETS.mcp1, {}))) }),
    act: (c, m) => del(c, `/api/mcp-servers/${m.id}`),
    entity: byId('mcp_server'),
  },
  'POST /api/llm-credentials': {
    act: (c) => post(c, '/api/llm-credentials', llmKeyBody(unique('key'))),
    entity: byBody('llm_credential'),
  },
  'PUT /api/llm-credentials/:id': {
    setup: async (c) => ({ id: await created(post(c, '/api/llm-credentials', llmKeyBody(unique('key')))) }),
    // Moving the key to another origin: the change that needs the key again, recorded as secret_changed only.
    act: (c, m) =>
      put(c, `/api/llm-credentials/${m.id}`, {
        ...llmKeyBody(unique('key')),
        origin: 'https://llm.example',
        api_key: SECRETS.llmKey2,
      }),
    entity: byId('llm_credential'),
  },
  'DELETE /api/llm-credentials/:id': {
    setup: async (c) => ({ id: await created(post(c, '/api/llm-credentials', llmKeyBody(unique('key')))) }),
    act: (c, m) => del(c, `/api/llm-credentials/${m.id}`),
    entity: byId('llm_credential'),
  },
  'POST /api/workflows': {
    act: (c) => post(c, '/api/workflows', workflowBody(unique('wf'))),
    entity: byBody('workflow'),
    designer: 'allowed',
  },
  'PUT /api/workflows/:id': {
    setup: async (c) => ({ id: await created(post(c, '/api/workflows', workflowBody(unique('wf')))) }),
    act: (c, m) => put(c, `/api/workflows/${m.id}`, { name: unique('wf') }),
    entity: byId('workflow'),
    designer: 'allowed',
  },
  'DELETE /api/workflows/:id': {
    setup: async (c) => ({ id: await created(post(c, '/api/workflows', workflowBody(unique('wf')))) }),
    act: (c, m) => del(c, `/api/workflows/${m.id}`),
    entity: byId('workflow'),
    designer: 'allowed',
  },
  'POST /api/agents/:id/rollback': {
    setup: async (c) => {
      const id = await created(post(c, '/api/agents', agentBody(unique('agent'))));
      const policy = { ...agentBody(unique('agent')).model_config_json, confirmation: { timeout_s: 30 } };
      const saved = await put(c, `/api/agents/${id}`, { ...agentBody(unique('agent')), model_config_json: policy });
      if (saved.status !== 200) throw new Error(`setup failed: ${saved.status} ${saved.text}`);
      return { id };
    },
    act: (c, m) => post(c, `/api/agents/${m.id}/rollback`, { version: 1 }),
    entity: byId('agent'),
  },
  'POST /api/org/hooks/rollback': {
    setup: async (c) => {
      for (const body of [{ class_hooks: ['audit_log'] }, {}]) {
        const saved = await put(c, '/api/org/hooks', body);
        if (saved.status !== 200) throw new Error(`setup failed: ${saved.status} ${saved.text}`);
      }
      const versions = (await c.t.request('GET', '/api/org/hooks/versions', { token: c.admin })).body as Array<{
        version: number;
      }>;
      return { version: String(versions.at(-2)!.version) };
    },
    act: (c, m) => post(c, '/api/org/hooks/rollback', { version: Number(m.version) }),
    entity: (c) => ({ type: 'org_hooks', id: c.orgId }),
    cleanup: async (c) => {
      await put(c, '/api/org/hooks', {});
    },
  },
  'POST /api/agents/:id/shadow': {
    setup: async (c) => ({ id: await created(post(c, '/api/agents', agentBody(unique('agent')))) }),
    act: (c, m) => post(c, `/api/agents/${m.id}/shadow`, { config: { require_confirmation_for_all: true } }),
    entity: byId('agent'),
  },
  'POST /api/agents/:id/shadow/promote': {
    setup: async (c) => {
      const id = await created(post(c, '/api/agents', agentBody(unique('agent'))));
      await created(post(c, `/api/agents/${id}/shadow`, { config: { require_confirmation_for_all: true } }));
      return { id };
    },
    act: (c, m) => post(c, `/api/agents/${m.id}/shadow/promote`, {}),
    entity: byId('agent'),
  },
  'POST /api/agents/:id/shadow/discard': {
    setup: async (c) => {
      const id = await created(post(c, '/api/agents', agentBody(unique('agent'))));
      await created(post(c, `/api/agents/${id}/shadow`, { config: { require_confirmation_for_all: true } }));
      return { id };
    },
    act: (c, m) => post(c, `/api/agents/${m.id}/shadow/discard`, {}),
    entity: byId('agent'),
  },
  'PUT /api/agents/:id/tests': {
    setup: async (c) => ({ id: await created(post(c, '/api/agents', agentBody(unique('agent')))) }),
    act: (c, m) => put(c, `/api/agents/${m.id}/tests`, { cases: [policyTestCase(unique('case'))] }),
    entity: byId('agent'),
  },
  'PUT /api/org/hooks/tests': {
    act: (c) => put(c, '/api/org/hooks/tests', { cases: [policyTestCase(unique('case'))] }),
    cleanup: async (c) => {
      await put(c, '/api/org/hooks/tests', { cases: [] });
    },
    entity: (c) => ({ type: 'org_hooks', id: c.orgId }),
  },
  'POST /api/org/hooks/shadow': {
    act: (c) => post(c, '/api/org/hooks/shadow', { config: { class_hooks: ['audit_log'] } }),
    entity: (c) => ({ type: 'org_hooks', id: c.orgId }),
    cleanup: async (c) => {
      await post(c, '/api/org/hooks/shadow/discard', {});
    },
  },
  'POST /api/org/hooks/shadow/promote': {
    setup: async (c) => {
      // One shadow per org: a case whose route was refused (another role's run of these cases) leaves one behind.
      await post(c, '/api/org/hooks/shadow/discard', {});
      await created(post(c, '/api/org/hooks/shadow', { config: { class_hooks: ['audit_log'] } }));
      return {};
    },
    act: (c) => post(c, '/api/org/hooks/shadow/promote', {}),
    entity: (c) => ({ type: 'org_hooks', id: c.orgId }),
    cleanup: async (c) => {
      await post(c, '/api/org/hooks/shadow/discard', {});
      await put(c, '/api/org/hooks', {});
    },
  },
  'POST /api/org/hooks/shadow/discard': {
    setup: async (c) => {
      // One shadow per org: a case whose route was refused (another role's run of these cases) leaves one behind.
      await post(c, '/api/org/hooks/shadow/discard', {});
      await created(post(c, '/api/org/hooks/shadow', { config: { class_hooks: ['audit_log'] } }));
      return {};
    },
    act: (c) => post(c, '/api/org/hooks/shadow/discard', {}),
    entity: (c) => ({ type: 'org_hooks', id: c.orgId }),
  },
  'PUT /api/org/hooks': {
    act: (c) => put(c, '/api/org/hooks', { class_hooks: ['audit_log'] }),
    entity: (c) => ({ type: 'org_hooks', id: c.orgId }),
  },
  'PUT /api/org/read-only': {
    act: (c) => put(c, '/api/org/read-only', { read_only: true }),
    entity: (c) => ({ type: 'org', id: c.orgId }),
    cleanup: async (c) => {
      await put(c, '/api/org/read-only', { read_only: false });
    },
  },
  'POST /api/org/scim-tokens': {
    act: (c) => post(c, '/api/org/scim-tokens', { label: unique('okta') }),
    entity: (_c, _m, res) => ({ type: 'scim_token', id: res.body.id as string }),
  },
  'DELETE /api/org/scim-tokens/:id': {
    setup: async (c) => ({ id: await created(post(c, '/api/org/scim-tokens', { label: unique('entra') })) }),
    act: (c, m) => c.t.request('DELETE', `/api/org/scim-tokens/${m.id}`, { token: c.admin }),
    entity: (_c, m) => ({ type: 'scim_token', id: m.id }),
  },
  'PUT /api/users/:sub/identities': {
    act: (c) => put(c, '/api/users/bob/identities', { slack_user_id: unique('U-BOB-') }),
    entity: (c) => ({ type: 'identity', id: c.bobUserId }),
  },
  'POST /api/me/identities/verify': {
    setup: async (c) => {
      const channelId = await created(post(c, '/api/channels', slackBody(c, unique('chan'))));
      const account = unique('U-BOB-PROOF-');
      const body = { platform: 'slack', external_id: account, channel_id: channelId };
      const start = await c.t.request('POST', '/api/me/identities/link', { token: c.bob, body });
      if (start.status !== 202) throw new Error(`setup failed: ${start.status} ${start.text}`);
      const dm = await until('the link code sent', () => c.slack.posted.find((m) => m.channel === account));
      return { linkId: start.body.link_id, code: /Code: (\d{6})/.exec(dm.text ?? '')![1] };
    },
    act: (c, m) =>
      c.t.request('POST', '/api/me/identities/verify', { token: c.bob, body: { link_id: m.linkId, code: m.code } }),
    entity: (c) => ({ type: 'identity', id: c.bobUserId }),
    actor: (c) => c.bobUserId,
    designer: 'own',
  },
};
