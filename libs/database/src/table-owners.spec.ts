import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** The module that owns each table (docs/architecture.md "Who owns each table"): only its files hold the table's SQL. */
const OWNERS: Record<string, string> = {
  agent_runs: 'libs/agents/',
  run_events: 'libs/agents/',
  tool_calls: 'libs/agents/',
  conversations: 'libs/agents/',
  agents: 'libs/agents/',
  connectors: 'libs/agents/',
  connector_actions: 'libs/agents/',
  llm_credentials: 'libs/agents/',
  mcp_servers: 'libs/agents/',
  tool_namespaces: 'libs/agents/',
  policy_decisions: 'libs/agents/',
  policy_shadows: 'libs/agents/',
  policy_shadow_results: 'libs/agents/',
  policy_tests: 'libs/agents/',
  orgs: 'libs/auth/',
  users: 'libs/auth/',
  identities: 'libs/auth/',
  org_members: 'libs/auth/',
  identity_audit: 'libs/auth/',
  scim_tokens: 'libs/auth/',
  scim_groups: 'libs/auth/',
  scim_group_members: 'libs/auth/',
  channels: 'libs/channels/',
  channel_events: 'libs/channels/',
  identity_link_codes: 'libs/channels/',
  notifications: 'libs/channels/',
  audit_events: 'libs/common/src/audit-trail/',
  audit_chain_heads: 'libs/common/src/audit-trail/',
  audit_sink_cursors: 'libs/common/src/audit-trail/',
  confirmation_requests: 'libs/confirmations/',
  confirmation_votes: 'libs/confirmations/',
  confirmation_events: 'libs/confirmations/',
  confirmation_batches: 'libs/confirmations/',
  standing_approvals: 'libs/confirmations/',
  standing_approval_uses: 'libs/confirmations/',
  evals: 'libs/evals/',
  connector_call_logs: 'libs/hooks/src/builtin/audit/',
  connector_rate_limits: 'libs/hooks/',
  org_hooks: 'libs/hooks/',
  policy_versions: 'libs/hooks/',
  workflows: 'libs/workflows/',
  workflow_runs: 'libs/workflows/',
  workflow_run_events: 'libs/workflows/',
};

/** Library sources (specs, migrations and test helpers aside), comments removed. */
const sources = (readdirSync(path.join(ROOT, 'libs'), { recursive: true }) as string[])
  .map((f) => `libs/${f.split(path.sep).join('/')}`)
  .filter(
    (f) => f.endsWith('.ts') && !f.endsWith('.spec.ts') && !f.includes('/migrations/') && !f.includes('/testing/'),
  )
  .map((file) => ({
    file,
    text: readFileSync(path.join(ROOT, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|(^|[^:'"`])\/\/.*$/gm, '$1'),
  }));

/** The tables a file's SQL reads or writes (FROM, JOIN, UPDATE, INSERT INTO, DELETE FROM). */
function tablesOf(text: string): Set<string> {
  const found = new Set<string>();
  for (const m of text.matchAll(/\b(?:FROM|JOIN|UPDATE|INTO)\s+([a-z_]+)\b/g)) if (m[1] in OWNERS) found.add(m[1]);
  return found;
}

describe('table ownership', () => {
  it("only a table's owner module holds SQL on it (another module places the owner's SQL pieces, e.g. run-port.ts)", () => {
    const foreign = sources.flatMap(({ file, text }) =>
      [...tablesOf(text)].filter((t) => !file.startsWith(OWNERS[t])).map((t) => `${file} -> ${t}`),
    );
    expect(foreign).toEqual([]);
  });

  it('every entity table has an owner, and docs/architecture.md names the same owners', () => {
    const entities = sources.flatMap(({ text }) => [...text.matchAll(/@Entity\('([a-z_]+)'\)/g)].map((m) => m[1]));
    expect(entities.filter((t) => !(t in OWNERS))).toEqual([]);
    const doc = readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');
    const documented = doc.slice(doc.indexOf('## Who owns each table'));
    for (const [table, owner] of Object.entries(OWNERS)) {
      const row = documented.split('\n').find((l) => l.startsWith('|') && l.includes(`\`${table}\``));
      expect({ table, owner: row?.includes(`\`${owner.replace(/\/$/, '')}\``) }).toEqual({ table, owner: true });
    }
  });
});
