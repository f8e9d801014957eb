import { recordSpan, tracingEnabled, type HookStats, type RunEventMap } from '@warden/common';
import type { ToolCallContext } from './hook-invocation.js';
import type { HookOutcome, HookOutcomeKind, HookPoint } from './hook.types.js';

/** What recording an outcome needs of the hook (a RegisteredHook). */
interface RecordedHook {
  name: string;
  point: HookPoint;
  stats?: HookStats;
}

/**
 * Records a hook's outcome (outcome list, metrics, trace span) and emits its `hook` event. Returns the emitter's
 * promise, if it gave one, for the runner to await before the next hook runs (so the stream shows this event
 * first); a synchronous emitter costs no promise and no microtask. `durationMs` undefined: the hook was not timed
 * (hook-timing.ts): it reports 0 ms and its outcome is counted, its duration not observed.
 */
export function recordHookOutcome(
  ctx: ToolCallContext,
  outcomes: HookOutcome[],
  entry: RecordedHook,
  kind: HookOutcomeKind,
  sideEffects: string[],
  durationMs: number | undefined,
  detail: string | undefined,
): PromiseLike<void> | undefined {
  const duration = durationMs === undefined ? 0 : Math.round(durationMs * 1000) / 1000;
  const outcome: HookOutcome = {
    hook: entry.name,
    point: entry.point,
    callId: ctx.callId,
    outcome: kind,
    sideEffects,
    durationMs: duration,
  };
  const event: RunEventMap['hook'] = {
    call_id: ctx.callId,
    point: entry.point,
    hook: entry.name,
    outcome: kind,
    side_effects: sideEffects,
    duration_ms: duration,
  };
  if (detail !== undefined) {
    outcome.detail = detail;
    event.detail = detail;
  }
  outcomes.push(outcome);
  // Dry runs (the dry-run route, shadows, replays, policy tests) are not live hook executions: not in the metrics.
  if (!ctx.metadata.dryRun) entry.stats?.record(kind, durationMs === undefined ? undefined : durationMs / 1000);
  // While tracing every hook is timed.
  if (tracingEnabled()) traceHookOutcome(entry, kind, duration, durationMs ?? 0, detail, ctx.callId);
  const emitted = ctx.emit('hook', event) as PromiseLike<void> | undefined;
  return isThenable(emitted) ? emitted : undefined;
}

/** Out of line: kept apart, the common path stays small enough to be inlined into the chain's loop. */
function traceHookOutcome(
  entry: RecordedHook,
  kind: HookOutcomeKind,
  duration: number,
  durationMs: number,
  detail: string | undefined,
  callId: string | undefined,
): void {
  const attributes = {
    'warden.hook': entry.name,
    'warden.hook.point': entry.point,
    'warden.hook.outcome': kind,
    'warden.hook.duration_ms': duration,
    'warden.call_id': callId ?? '',
  };
  recordSpan(
    `hook ${entry.name}`,
    detail === undefined ? attributes : { ...attributes, 'warden.hook.detail': detail },
    durationMs,
    kind === 'error' ? detail : undefined,
  );
}

export const isThenable = <T>(v: T | PromiseLike<T>): v is PromiseLike<T> =>
  v !== null &&
  (typeof v === 'object' || typeof v === 'function') &&
  typeof (v as { then?: unknown }).then === 'function';
