import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { AppConfig, DomainErrorKind } from '@warden/common';
import path from 'node:path';
import { HookBuildError } from './hook-build.error.js';
import { HookCatalog } from './hook-catalog.js';
import { HookExplorer } from './hook-explorer.js';
import { HookResolver } from './hook-resolver.js';
import { Hook } from './hook.decorator.js';
import { PostToolUseHook, PreToolUseHook, type HookContext, type HookResult } from './hook.types.js';

const HOOKS_DIR = path.resolve('test/fixtures/hooks');

@Hook({ name: 'audit_log', priority: 1000, description: 'records every call', autoAttach: true })
class AuditHook extends PostToolUseHook {
  execute(): HookResult {
    return { sideEffects: ['logged'] };
  }
}

@Hook({
  name: 'result_truncate',
  priority: 900,
  description: 'truncates long results',
  configSchema: {
    type: 'object',
    properties: {
      max_chars: { type: 'integer', minimum: 100, maximum: 100000, default: 8000 },
      marker: { type: 'string', enum: ['[truncated]', '…'] },
    },
  },
})
class TruncateHook extends PostToolUseHook<{ max_chars: number }> {
  execute(ctx: HookContext, config: { max_chars: number }): HookResult {
    return { modifiedResult: ctx.toolResult!.slice(0, config.max_chars) };
  }
}

@Hook({
  name: 'amount_limit',
  priority: 20,
  description: 'blocks big payments',
  configSchema: { type: 'object', properties: { limit: { type: 'number' } }, required: ['limit'] },
})
class AmountLimitHook extends PreToolUseHook<{ limit: number }> {
  execute(ctx: HookContext, config: { limit: number }): HookResult {
    return Number(ctx.toolArgs.amount) > config.limit ? { allow: false, error: `amount over ${config.limit}` } : {};
  }
}

@Module({ providers: [AuditHook, TruncateHook, AmountLimitHook] })
class TestHooksModule {}

async function boot(...modules: Array<new () => unknown>) {
  const moduleRef = await Test.createTestingModule({
    imports: [DiscoveryModule, ...modules],
    providers: [HookCatalog, HookExplorer, HookResolver, { provide: AppConfig, useValue: { hooksDir: HOOKS_DIR } }],
  }).compile();
  await moduleRef.init();
  return moduleRef;
}

const ctx = (toolArgs: Record<string, unknown> = {}) => ({
  toolName: 'oa__purchase_pay',
  toolArgs,
  agentId: 'a',
  userId: 'u',
  orgId: 'o',
  runId: 'r',
  callId: 'c',
  surface: 'chat' as const,
  metadata: {},
  emit: () => Promise.resolve(),
});

describe('HookExplorer + HookResolver', () => {
  let resolver: HookResolver;
  let catalog: HookCatalog;
  beforeAll(async () => {
    const moduleRef = await boot(TestHooksModule);
    resolver = moduleRef.get(HookResolver);
    catalog = moduleRef.get(HookCatalog);
  });

  it('discovers @Hook providers of any module into the catalog, sorted by priority', () => {
    expect(catalog.list().map((e) => [e.name, e.point, e.autoAttach])).toEqual([
      ['amount_limit', 'PreToolUse', false],
      ['result_truncate', 'PostToolUse', false],
      ['audit_log', 'PostToolUse', true],
    ]);
  });

  it('fails the boot on duplicate hook names', async () => {
    @Hook({ name: 'audit_log', priority: 1, description: 'an impostor' })
    class OtherAudit extends PostToolUseHook {
      execute(): HookResult {
        return {};
      }
    }
    @Module({ providers: [OtherAudit] })
    class ImpostorModule {}
    await expect(boot(TestHooksModule, ImpostorModule)).rejects.toThrow(
      /Duplicate hook name "audit_log": declared by both/,
    );
  });

  it('fails the boot for a @Hook class that is not a hook', async () => {
    @Hook({ name: 'not_a_hook', priority: 1, description: 'plain class' })
    class NotAHook {
      execute() {
        return {};
      }
    }
    @Module({ providers: [NotAHook] })
    class BadModule {}
    await expect(boot(BadModule)).rejects.toThrow(
      /must extend the base class of a hook point \(PreToolUseHook, PostToolUseHook, SessionStartHook/,
    );
  });

  it('builds a registry from names and { name, config } objects, applying defaults, always adding auto-attached hooks', async () => {
    const registry = await resolver.resolve({
      hooksConfig: { class_hooks: [{ name: 'amount_limit', config: { limit: 100 } }, 'result_truncate'] },
    });
    expect(registry.entries().map((e) => [e.name, e.autoAttached])).toEqual([
      ['amount_limit', false],
      ['result_truncate', false],
      ['audit_log', true],
    ]);
    const blocked = await registry.runPreToolUse(ctx({ amount: 500 }));
    expect(blocked).toMatchObject({ allow: false, blockedBy: 'amount_limit', error: 'amount over 100' });
    const long = 'x'.repeat(9000);
    const post = await registry.runPostToolUse({ ...ctx(), toolResult: long });
    expect(post.result).toHaveLength(8000);
    const bare = await resolver.resolve({ hooksConfig: undefined });
    expect(bare.entries().map((e) => e.name)).toEqual(['audit_log']);
  });

  it.each([
    [
      'a string instead of a list',
      { class_hooks: 'audit_log' },
      ['hooks.class_hooks: must be a list of hook names or { "name", "config" } objects'],
    ],
    [
      'an unknown name',
      { class_hooks: ['audit_log', 'result_truncate', 'audti_log'] },
      ['hooks.class_hooks[2]: unknown hook "audti_log" (did you mean "audit_log"?)'],
    ],
    [
      'a non-string entry',
      { class_hooks: [42, null] },
      [
        'hooks.class_hooks[0]: must be a hook name or { "name", "config" }, not number',
        'hooks.class_hooks[1]: must be a hook name or { "name", "config" }, not null',
      ],
    ],
    [
      'a duplicate name',
      { class_hooks: ['result_truncate', { name: 'result_truncate' }] },
      ['hooks.class_hooks[1]: duplicate hook "result_truncate" (also hooks.class_hooks[0])'],
    ],
    [
      'a config of the wrong type',
      { class_hooks: [{ name: 'result_truncate', config: { max_chars: 'lots' } }] },
      ['hooks.class_hooks[0].config.max_chars: must be an integer'],
    ],
    [
      'a config out of range',
      { class_hooks: [{ name: 'result_truncate', config: { max_chars: 5 } }] },
      ['hooks.class_hooks[0].config.max_chars: must be at least 100'],
    ],
    [
      'a config value not in the enum',
      { class_hooks: [{ name: 'result_truncate', config: { marker: '...' } }] },
      ['hooks.class_hooks[0].config.marker: must be one of "[truncated]", "…"'],
    ],
    [
      'an unknown config key',
      { class_hooks: [{ name: 'result_truncate', config: { max_char: 500 } }] },
      ['hooks.class_hooks[0].config.max_char: unknown setting (expected one of max_chars, marker)'],
    ],
    [
      'a missing required config',
      { class_hooks: ['amount_limit'] },
      ['hooks.class_hooks[0].config.limit: is required'],
    ],
    [
      'config for a hook without a schema',
      { class_hooks: [{ name: 'audit_log', config: { x: 1 } }] },
      ['hooks.class_hooks[0].config: this hook takes no config (got "x")'],
    ],
    ['hooks that are not an object', ['audit_log'], ['hooks: must be an object with "class_hooks" and/or "yaml"']],
    ['an unknown key', { class_hook: ['audit_log'] }, ['hooks.class_hook: unknown key (expected class_hooks, yaml)']],
  ])('validate() names the problem: %s', async (_, hooksConfig, problems) => {
    expect(await resolver.validate(hooksConfig)).toEqual(problems);
  });

  it('refuses to build a run whose config names a now-unknown hook (HookBuildError, 422)', async () => {
    const attempt = resolver.resolve({ hooksConfig: { class_hooks: ['pii_redactor'] } });
    await expect(attempt).rejects.toBeInstanceOf(HookBuildError);
    const err = (await attempt.catch((e: unknown) => e)) as HookBuildError;
    expect(err.kind).toBe(DomainErrorKind.RunRefused);
    expect(err.problems).toEqual([
      'hooks.class_hooks[0]: unknown hook "pii_redactor" (known hooks: amount_limit, result_truncate, audit_log)',
    ]);
    expect(err.message).toContain('unknown hook "pii_redactor"');
  });

  it('validate() reports every problem of a config at once', async () => {
    const problems = await resolver.validate({
      class_hooks: ['nope', { name: 'result_truncate', config: { max_chars: 1 } }],
    });
    expect(problems).toHaveLength(2);
  });
});
