import type { HookContext, HookPoint, RunEventEmitter, Surface, ToolArgs, ToolCallMetadata } from './hook.types.js';

/** What the runtime knows about one tool call (or the session, for SessionStart) before the hooks run. */
export type ToolCallContext = Omit<HookContext, 'point' | 'signal' | 'toolResult'> & {
  /** The run's own signal (cancellation); each hook additionally gets its timeout. */
  signal?: AbortSignal;
};

/**
 * The context hooks see. The run's fields are copied once per chain (plain fields: a hook reads them at the cost of
 * a field load). One object serves consecutive hooks while each returns synchronously and never reads its `signal`;
 * a hook that returned a promise (it may still be running after its timeout) or holds its signal keeps its object,
 * and the next hook gets a new one, so a hook still running never sees the args or the signal of the hooks after it.
 * The signal is created on first read only: a hook that never looks at it costs no AbortController.
 */
export class HookInvocation implements HookContext {
  readonly toolName: string;
  readonly agentId: string;
  readonly userId: string;
  readonly orgId: string;
  readonly runId: string;
  readonly callId: string | undefined;
  readonly surface: Surface;
  readonly metadata: ToolCallMetadata;
  readonly emit: RunEventEmitter;
  private readonly runSignal: AbortSignal | undefined;
  private controller: AbortController | undefined;
  private lazySignal: AbortSignal | undefined;
  private abortReason: unknown;
  private kept = false;

  constructor(
    base: ToolCallContext,
    readonly point: HookPoint,
    public toolArgs: ToolArgs,
    public toolResult: string | undefined,
  ) {
    this.toolName = base.toolName;
    this.agentId = base.agentId;
    this.userId = base.userId;
    this.orgId = base.orgId;
    this.runId = base.runId;
    this.callId = base.callId;
    this.surface = base.surface;
    this.metadata = base.metadata;
    this.emit = base.emit;
    this.runSignal = base.signal;
  }

  get signal(): AbortSignal {
    if (!this.lazySignal) {
      this.controller = new AbortController();
      if (this.abortReason !== undefined) this.controller.abort(this.abortReason);
      const runSignal = this.runSignal;
      this.lazySignal = runSignal ? AbortSignal.any([runSignal, this.controller.signal]) : this.controller.signal;
    }
    return this.lazySignal;
  }

  abort(reason: unknown): void {
    this.abortReason = reason;
    this.controller?.abort(reason);
  }

  /** The hook this object was given to is still running (it returned a promise): no later hook gets this object. */
  keep(): void {
    this.kept = true;
  }

  /** Whether the next hook may be given this object (with its own args and text). */
  get reusable(): boolean {
    return !this.kept && this.lazySignal === undefined;
  }
}
