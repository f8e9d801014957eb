import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Every path that can send an action calls the kernel (docs/authorization.md "Paths that send an action"). This scan
 * lists each call site of a sender and of outbound HTTP in apps/ and libs/, and fails when one appears that is not
 * listed here: route a new sender through ToolExecution (and so through ToolCallRunner's kernel check), or list
 * a call site that sends no action with the reason.
 */
const root = path.resolve(import.meta.dirname, '../../..');

function sources(): Array<{ file: string; text: string }> {
  return ['apps/api', 'libs'].flatMap((dir) =>
    readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
      .filter(
        (e) => e.isFile() && e.name.endsWith('.ts') && !/\.(spec|e2e)\.ts$/.test(e.name) && !e.name.endsWith('.d.ts'),
      )
      .map((e) => {
        const file = path.relative(root, path.join(e.parentPath, e.name));
        return { file, text: readFileSync(path.join(root, file), 'utf8') };
      }),
  );
}

/** The call sites matching `pattern`, as "file: matched text". */
function callSites(pattern: RegExp): string[] {
  return sources()
    .flatMap(({ file, text }) => [...text.matchAll(pattern)].map((m) => `${file}: ${m[0]}`))
    .sort();
}

/** Senders of actions: each call site is the one executor's, reached only through ToolExecution.execute. */
const ACTION_SENDERS: Record<string, string> = {
  'libs/agents/src/engine/tool-execution.ts: connectors.execute(': 'connector request, from ToolExecution.execute',
  'libs/agents/src/engine/tool-execution.ts: mcp.execute(': 'MCP tool call, from ToolExecution.execute',
  'libs/agents/src/engine/tool-execution.ts: builtin.execute(':
    'built-ins (channel_notify, call_agent, ask_human), from ToolExecution.execute',
  'libs/agents/src/mcp/mcp-tool-executor.ts: pool.callTool(':
    'McpToolExecutor.execute, itself called only by ToolExecution',
  'libs/agents/src/mcp/mcp-client-pool.ts: client.callTool(': 'the MCP SDK call behind McpClientPool.callTool',
};

/** Outbound HTTP that sends no action (no tool call of an agent), with why. */
const NOT_ACTIONS: Record<string, string> = {
  'libs/agents/src/connectors/connector-executor.ts: egress.request(':
    'the connector request itself (ConnectorExecutor.execute, an ACTION_SENDER)',
  'libs/hooks/src/yaml/http-hook.ts: env.fetch(': 'an HTTP hook asking its server for a decision: part of decide',
  'libs/auth/src/tokens/token-verifier.ts: fetch(': 'OIDC discovery',
  'libs/auth/src/tokens/jwks-cache.ts: fetch(': "the OIDC issuer's signing keys (JWKS)",
  'libs/channels/src/wecom/wecom-tokens.ts: this.fetch(': 'WeCom access token for approval cards and channel messages',
  'libs/channels/src/wecom/wecom.channel.ts: egress.fetch(': 'WeCom approval cards and channel messages',
  'libs/channels/src/slack/slack.channel.ts: .fetch(': 'Slack approval cards and channel messages',
  'libs/common/src/audit-trail/audit-sink.ts: fetch(': 'audit trail export to a sink',
  'libs/common/src/http/egress.ts: fetch(': 'the egress policy itself',
};

/** Each of `calls` appears in `text`, in this order. */
function inOrder(text: string, calls: string[]): void {
  const order = calls.map((c) => text.indexOf(c));
  expect(order.every((i) => i >= 0)).toBe(true);
  expect([...order].sort((a, b) => a - b)).toEqual(order);
}

describe('every path that can send an action calls the kernel', () => {
  it('the senders of actions are exactly the listed ones', () => {
    const found = callSites(/\b(?:connectors|mcp|builtin)\.execute\(|\b(?:pool|client)\.callTool\(/g);
    expect(found).toEqual(Object.keys(ACTION_SENDERS).sort());
  });

  it('outbound HTTP outside the senders sends no action (each site listed with why)', () => {
    const found = callSites(
      /(?:\begress\.(?:request|fetch)\(|\benv\.fetch\(|\bthis\.fetch\(|^\s*\.fetch\(|(?<![.\w])fetch\()/gm,
    ).map((s) => s.replace(/: \s+\.fetch\(/, ': .fetch('));
    expect([...new Set(found)].sort()).toEqual(Object.keys(NOT_ACTIONS).sort());
  });

  it('ToolExecution.execute is called only by ToolCallRunner, after redecide and the kernel check (sendRefusal)', () => {
    const callers = callSites(/\bexecution\.execute\(/g);
    expect(callers).toEqual(['libs/agents/src/engine/tool-call-runner.ts: execution.execute(']);
    const runner = readFileSync(path.join(root, 'libs/agents/src/engine/tool-call-runner.ts'), 'utf8');
    const run = runner.slice(runner.indexOf('  async run('), runner.indexOf('  private async storeBlocked('));
    inOrder(run, ['decideCall(', 'this.execute(']);
    expect(runner.match(/this\.execute\(/g)).toHaveLength(1);
    // decideCall (tool-call-decision.ts): the hooks' verdict, then lastCheck: an edit decided again, then the kernel.
    const decision = readFileSync(path.join(root, 'libs/agents/src/engine/tool-call-decision.ts'), 'utf8');
    const decide = decision.slice(decision.indexOf('export async function decideCall('));
    inOrder(decide.slice(0, decide.indexOf('\n}\n')), ['runPreToolUse(', 'lastCheck(']);
    inOrder(decision.slice(decision.indexOf('async function lastCheck(')), ['redecide(', 'sendRefusal(']);
  });

  it('workflow nodes send nothing themselves: they are runs of the run engine', () => {
    const workflows = sources().filter((s) => s.file.startsWith('libs/workflows/'));
    for (const { file, text } of workflows)
      expect(`${file}: ${/ToolExecution|ConnectorExecutor|McpToolExecutor/.test(text)}`).toBe(`${file}: false`);
  });
});
