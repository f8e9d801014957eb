import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { ToolCallContext } from '../hook-registry.js';
import { toolCallContext } from '../testing/tool-call-context.js';
import { resolverWithClassHook } from '../testing/yaml-resolver.js';

const resolver = resolverWithClassHook();

const call = (toolName: string, toolArgs: Record<string, unknown>): ToolCallContext =>
  toolCallContext({ toolName, toolArgs });

const registryFor = (yaml: string, classHooks: string[] = []) =>
  resolver.resolve({ hooksConfig: { class_hooks: classHooks, yaml } });

/** Processes still alive (or unreaped) from the fixture scripts, by their unusual command lines. */
function leftoverProcesses(): string[] {
  const table = execFileSync('ps', ['-eo', 'pid,ppid,stat,args'], { encoding: 'utf8' });
  return table.split('\n').filter((line) => /sleep 3[78]|slow\.sh|huge-output\.sh/.test(line));
}

async function expectNoLeftovers(): Promise<void> {
  const deadline = Date.now() + 3000;
  while (leftoverProcesses().length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  expect(leftoverProcesses()).toEqual([]);
}

describe('YAML hooks', () => {
  describe('command hooks (Claude Code protocol)', () => {
    const denyProdDeletes = `
hooks:
  - name: deny-prod-deletes
    event: PreToolUse
    matcher: "oa__delete_*"
    run: ./deny-prod-deletes.sh
    priority: 5
`;

    it('blocks oa__delete_* in prod via exit 2 with its stderr as the reason; env dev passes', async () => {
      const registry = await registryFor(denyProdDeletes);
      const prod = await registry.runPreToolUse(call('oa__delete_order', { id: 7, env: 'prod' }));
      expect(prod).toMatchObject({
        allow: false,
        blockedBy: 'deny-prod-deletes',
        error: 'deleting in prod needs a change ticket',
      });
      const dev = await registry.runPreToolUse(call('oa__delete_order', { id: 7, env: 'dev' }));
      expect(dev).toMatchObject({ allow: true, args: { id: 7, env: 'dev' } });
      const other = await registry.runPreToolUse(call('oa__purchase_pay', { env: 'prod' }));
      expect(other.outcomes).toEqual([]);
    });

    it('evaluates a CEL `if` over args, and fails closed when it cannot be evaluated', async () => {
      const registry = await registryFor(`
hooks:
  - name: prod-only
    event: PreToolUse
    if: "args.env == 'prod'"
    run: ./crash.sh
`);
      const dev = await registry.runPreToolUse(call('oa__delete_order', { env: 'dev' }));
      expect(dev).toMatchObject({ allow: true, outcomes: [] });
      const prod = await registry.runPreToolUse(call('oa__delete_order', { env: 'prod' }));
      expect(prod).toMatchObject({ allow: false, blockedBy: 'prod-only' });
      const missing = await registry.runPreToolUse(call('oa__delete_order', {}));
      expect(missing).toMatchObject({ allow: false, blockedBy: 'prod-only' });
      expect(missing.error).toMatch(/could not be evaluated: No such key: env/);
    });

    it('joins class hooks in one ordering by priority', async () => {
      const registry = await registryFor(denyProdDeletes.replace('priority: 5', 'priority: 20'), ['recorder']);
      expect(registry.entries().map((e) => [e.name, e.source])).toEqual([
        ['recorder', 'class'],
        ['deny-prod-deletes', 'yaml'],
      ]);
      const verdict = await registry.runPreToolUse(call('oa__delete_order', { env: 'prod' }));
      expect(verdict.outcomes.map((o) => [o.hook, o.outcome])).toEqual([
        ['recorder', 'allow'],
        ['deny-prod-deletes', 'block'],
      ]);
    });

    it('passes a model-controlled "; rm -rf /" only as JSON data on stdin, with fixed argv and a minimal environment', async () => {
      const canary = `/tmp/warden-hook-canary-${process.pid}`;
      const hostile = `"; touch ${canary}; echo "; rm -rf /`;
      const registry = await registryFor(`
hooks:
  - name: echo
    event: PreToolUse
    run: ["./echo-input.mjs", "--strict"]
`);
      const verdict = await registry.runPreToolUse(call('oa__note', { text: hostile }));
      expect(verdict.allow).toBe(true);
      const [argv, stdin, envKeys] = verdict.outcomes[0].sideEffects;
      expect(JSON.parse(argv)).toEqual(['--strict']);
      const input = JSON.parse(stdin);
      expect(input).toMatchObject({
        hook_event_name: 'PreToolUse',
        tool_name: 'oa__note',
        tool_input: { text: hostile },
        agent_id: 'agent-1',
        call_id: 'call-1',
        surface: 'chat',
      });
      expect(JSON.parse(envKeys)).toEqual(['HOME', 'LANG', 'PATH', 'WARDEN_HOOK_EVENT']);
      expect(existsSync(canary)).toBe(false);
    });

    it('a SessionStart command adds context', async () => {
      const registry = await registryFor(`
hooks:
  - event: SessionStart
    run: ./session-context.sh
`);
      const { additionalContext } = await registry.runSessionStart(call('', {}));
      expect(additionalContext).toEqual(['Quarter close: payments over 10k need a PO.']);
    });
  });

  describe('failures follow on_error, with a recorded reason and no processes left behind', () => {
    const guard = (script: string, extra = '') => `
hooks:
  - name: guard
    event: PreToolUse
    run: ${script}
${extra}`;

    it('a timeout blocks and kills the whole process group', async () => {
      const registry = await registryFor(guard('./slow.sh', '    timeout_ms: 300'));
      const started = Date.now();
      const verdict = await registry.runPreToolUse(call('oa__x', {}));
      expect(Date.now() - started).toBeLessThan(2500);
      expect(verdict).toMatchObject({ allow: false, blockedBy: 'guard' });
      expect(verdict.outcomes[0]).toMatchObject({
        outcome: 'error',
        detail: "hook 'guard' did not finish within 300 ms",
      });
      await expectNoLeftovers();
    });

    it('with on_error: allow a timeout is recorded and the call goes on', async () => {
      const registry = await registryFor(guard('./slow.sh', '    timeout_ms: 300\n    on_error: allow'));
      const verdict = await registry.runPreToolUse(call('oa__x', {}));
      expect(verdict.allow).toBe(true);
      expect(verdict.outcomes[0].outcome).toBe('error');
      await expectNoLeftovers();
    });

    it.each([
      ['a crash', './crash.sh', /command exited with code 3: segfault in policy engine/],
      ['garbage stdout', './garbage.sh', /stdout is not JSON: "this is not json"/],
      ['a 10 MB stdout', './huge-output.sh', /stdout exceeded 1048576 bytes/],
    ])('%s blocks by default and passes with on_error: allow', async (_, script, reason) => {
      const strict = await (await registryFor(guard(script))).runPreToolUse(call('oa__x', {}));
      expect(strict).toMatchObject({ allow: false, blockedBy: 'guard' });
      expect(strict.outcomes[0].detail).toMatch(reason);
      const lenient = await (await registryFor(guard(script, '    on_error: allow'))).runPreToolUse(call('oa__x', {}));
      expect(lenient.allow).toBe(true);
      expect(lenient.outcomes[0].detail).toMatch(reason);
      await expectNoLeftovers();
    });
  });

  describe('module hooks', () => {
    it('redacts card_number in args (updated_input) and masks e-mails in results (updated_output)', async () => {
      const registry = await registryFor(`
hooks:
  - name: redact-card
    event: PreToolUse
    matcher: "/^pay_|__pay$/"
    module: ./redact-card.mjs
  - name: mask-emails
    event: PostToolUse
    module: ./mask-emails.mjs
`);
      const pre = await registry.runPreToolUse(call('shop__pay', { amount: 12, card_number: '4111111111111111' }));
      expect(pre).toMatchObject({ allow: true, args: { amount: 12, card_number: '****1111' } });
      expect(pre.outcomes[0]).toMatchObject({
        hook: 'redact-card',
        outcome: 'rewrite',
        sideEffects: ['card_number redacted'],
      });
      const post = await registry.runPostToolUse({
        ...call('crm__find', {}),
        toolResult: 'owner: ana.li@example.com, cc bob@corp.example.org',
      });
      expect(post.result).toBe('owner: <email>, cc <email>');
    });
  });
});
