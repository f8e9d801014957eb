import type { RegisteredHook } from '../hook-chain.js';
import {
  HookPoint,
  PostToolUseHook,
  PreToolUseHook,
  SessionStartHook,
  type HookContext,
  type HookErrorPolicy,
  type HookResult,
} from '../hook.types.js';

/** A hook's behaviour in a spec: what it returns (or throws) for a call. */
export type HookFn = (ctx: HookContext) => HookResult | Promise<HookResult>;

/** A PreToolUse hook doing `fn`. */
export class Pre extends PreToolUseHook {
  constructor(private readonly fn: HookFn) {
    super();
  }
  execute(ctx: HookContext) {
    return this.fn(ctx);
  }
}

/** A PostToolUse hook doing `fn`. */
export class Post extends PostToolUseHook {
  constructor(private readonly fn: HookFn) {
    super();
  }
  execute(ctx: HookContext) {
    return this.fn(ctx);
  }
}

/** A SessionStart hook doing `fn`. */
export class Start extends SessionStartHook {
  constructor(private readonly fn: HookFn) {
    super();
  }
  execute(ctx: HookContext) {
    return this.fn(ctx);
  }
}

/** The hook as attached to an agent (a class hook; PreToolUse fails closed unless `onError` says otherwise). */
export function registeredHook(
  name: string,
  priority: number,
  h: PreToolUseHook | PostToolUseHook | SessionStartHook,
  extra: { timeoutMs?: number; onError?: HookErrorPolicy; runsLast?: boolean } = {},
): RegisteredHook {
  return {
    name,
    point: h.point,
    priority,
    timeoutMs: extra.timeoutMs ?? 5000,
    onError: extra.onError ?? (h.point === HookPoint.PreToolUse ? 'block' : 'allow'),
    hook: h,
    config: {},
    source: 'class',
    autoAttached: false,
    ...(extra.runsLast ? { runsLast: true } : {}),
  };
}
