import { runTextHooks } from './hook-points.js';
import { HookRegistry, type RegisteredHook, type ToolCallContext } from './hook-registry.js';
import {
  HookPoint,
  PostToolUseFailureHook,
  PreModelCallHook,
  StopHook,
  UserPromptSubmitHook,
  type BaseHook,
  type HookContext,
  type HookErrorPolicy,
  type HookResult,
} from './hook.types.js';

type Fn = (ctx: HookContext) => HookResult | Promise<HookResult>;
class Prompt extends UserPromptSubmitHook {
  constructor(private readonly fn: Fn) {
    super();
  }
  execute(ctx: HookContext) {
    return this.fn(ctx);
  }
}
class Stop extends StopHook {
  constructor(private readonly fn: Fn) {
    super();
  }
  execute(ctx: HookContext) {
    return this.fn(ctx);
  }
}
class Failure extends PostToolUseFailureHook {
  constructor(private readonly fn: Fn) {
    super();
  }
  execute(ctx: HookContext) {
    return this.fn(ctx);
  }
}
class Model extends PreModelCallHook {
  constructor(private readonly fn: Fn) {
    super();
  }
  execute(ctx: HookContext) {
    return this.fn(ctx);
  }
}

const hook = (
  name: string,
  priority: number,
  h: BaseHook,
  extra: { timeoutMs?: number; onError?: HookErrorPolicy } = {},
): RegisteredHook => ({
  name,
  point: h.point,
  priority,
  timeoutMs: extra.timeoutMs ?? 5000,
  onError: extra.onError ?? 'allow',
  hook: h,
  config: {},
  source: 'class',
  autoAttached: false,
});

function context(events: Array<Record<string, unknown>> = []): ToolCallContext {
  return {
    toolName: '',
    toolArgs: {},
    agentId: 'a',
    userId: 'u',
    orgId: 'o',
    runId: 'r',
    surface: 'chat',
    metadata: {},
    emit: (_type, data) => {
      events.push(data);
      return Promise.resolve();
    },
  };
}

describe('runTextHooks (UserPromptSubmit, PreModelCall, PostToolUseFailure, Stop)', () => {
  it('runs by priority (ties by name), each hook seeing the text the hooks before left, and streams every outcome', async () => {
    const events: Array<Record<string, unknown>> = [];
    const append =
      (s: string): Fn =>
      (ctx) => ({ modifiedResult: `${ctx.toolResult}${s}` });
    const registry = new HookRegistry([
      hook('z', 20, new Prompt(append('z'))),
      hook('b', 10, new Prompt(append('b'))),
      hook('a', 10, new Prompt(append('a'))),
    ]);
    const verdict = await runTextHooks(registry, HookPoint.UserPromptSubmit, context(events), '>');
    expect(verdict).toMatchObject({ allow: true, text: '>abz' });
    expect(events.map((e) => [e.hook, e.point, e.outcome])).toEqual([
      ['a', 'UserPromptSubmit', 'rewrite'],
      ['b', 'UserPromptSubmit', 'rewrite'],
      ['z', 'UserPromptSubmit', 'rewrite'],
    ]);
  });

  it('the first block stops the chain; nothing after it runs', async () => {
    let after = 0;
    const registry = new HookRegistry([
      hook('dlp', 1, new Prompt(() => ({ allow: false, error: 'secret' }))),
      hook(
        'later',
        2,
        new Prompt(() => {
          after++;
          return {};
        }),
      ),
    ]);
    expect(await runTextHooks(registry, HookPoint.UserPromptSubmit, context(), 'x')).toMatchObject({
      allow: false,
      blockedBy: 'dlp',
      error: 'secret',
    });
    expect(after).toBe(0);
  });

  it('a UserPromptSubmit or PreModelCall hook that times out blocks when its policy says block (fail closed)', async () => {
    const never = () => new Promise<HookResult>(() => undefined);
    const registry = new HookRegistry([hook('slow', 1, new Model(never), { timeoutMs: 30, onError: 'block' })]);
    const verdict = await runTextHooks(registry, HookPoint.PreModelCall, context(), '');
    expect(verdict).toMatchObject({
      allow: false,
      blockedBy: 'slow',
      failed: true,
      error: "hook failed: hook 'slow' did not finish within 30 ms",
    });
  });

  it('a failing Stop hook with on_error allow is recorded and the answer stands; a PostToolUseFailure hook cannot block', async () => {
    const events: Array<Record<string, unknown>> = [];
    const stop = new HookRegistry([
      hook(
        'boom',
        1,
        new Stop(() => {
          throw new Error('boom');
        }),
      ),
    ]);
    expect(await runTextHooks(stop, HookPoint.Stop, context(events), 'answer')).toMatchObject({
      allow: true,
      text: 'answer',
    });
    expect(events[0]).toMatchObject({ hook: 'boom', outcome: 'error', detail: 'boom' });
    const failure = new HookRegistry([hook('nope', 1, new Failure(() => ({ allow: false })), { onError: 'block' })]);
    const verdict = await runTextHooks(failure, HookPoint.PostToolUseFailure, context(), 'Error: 503');
    expect(verdict).toMatchObject({ allow: true, text: 'Error: 503' });
  });

  it('fields that make no sense for the point fail the hook instead of being half-applied', async () => {
    const registry = new HookRegistry([
      hook('wrong', 1, new Model(() => ({ modifiedResult: 'x' })), { onError: 'block' }),
    ]);
    expect(await runTextHooks(registry, HookPoint.PreModelCall, context(), '')).toMatchObject({
      allow: false,
      failed: true,
    });
    const ok = new HookRegistry([hook('downgrade', 1, new Model(() => ({ modifiedModel: 'small' })))]);
    expect(await runTextHooks(ok, HookPoint.PreModelCall, context(), '')).toMatchObject({
      allow: true,
      model: 'small',
    });
  });
});
