import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { DecisionSink, type LiveDecision, type ToolCallMetadata } from '@warden/hooks';
import { DecisionStore, type RecordedCall } from './decision-store.js';
import { decisionOf } from './policy-decision.js';
import { ShadowEvaluator } from './shadow-evaluator.js';

const BATCH = 500;
/**
 * How long a decision waits for others to share its statement: one chat run after another would otherwise cost one
 * transaction each. A crash loses at most this much of the what-if record (never a call, never the audit trail).
 */
const LINGER_MS = 1000;

/**
 * Records live PreToolUse decisions off the call's path: `record` only enqueues (the live call goes on at once);
 * a background loop writes them in batches (one statement per batch, at most LINGER_MS after the first) and lets
 * each active shadow decide the same calls (ShadowEvaluator). A failure is logged and loses only the record, never
 * the call. Readers on this instance `drain()` first.
 */
@Injectable()
export class DecisionRecorder extends DecisionSink implements OnApplicationShutdown {
  private readonly logger = new Logger(DecisionRecorder.name);
  private queue: Array<{ call: RecordedCall; live: LiveDecision; metadata: ToolCallMetadata }> = [];
  private running: Promise<void> | null = null;
  private lingering: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: DecisionStore,
    // Looked up when first needed: the HookResolver takes this recorder, and the shadows' evaluator takes the resolver.
    private readonly moduleRef: ModuleRef,
  ) {
    super();
  }

  record(live: LiveDecision): void {
    const { ctx, verdict } = live;
    // A suspended call decided nothing (its next driver decides it).
    if (verdict.suspended !== undefined) return;
    this.queue.push({
      live,
      metadata: ctx.metadata,
      call: {
        orgId: ctx.orgId,
        agentId: ctx.agentId,
        userId: ctx.userId,
        runId: ctx.runId,
        callId: ctx.callId ?? null,
        tool: ctx.toolName,
        args: live.modelArgs,
        // Off the path too: computed by the loop (placeholder until then).
        decision: undefined as never,
        createdAt: live.at,
      },
    });
    if (this.queue.length >= BATCH) this.writeNow();
    else if (!this.lingering && !this.running) this.lingering = setTimeout(() => this.writeNow(), LINGER_MS);
  }

  /** Resolves once every decision recorded so far is written (and evaluated by the shadows). */
  async drain(): Promise<void> {
    if (this.queue.length > 0) this.writeNow();
    while (this.running) await this.running;
  }

  private writeNow(): void {
    if (this.lingering) clearTimeout(this.lingering);
    this.lingering = null;
    this.running ??= this.loop().finally(() => (this.running = null));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.drain();
  }

  private async loop(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, BATCH);
      try {
        for (const b of batch) b.call.decision = decisionOf(b.call.tool, b.call.args, b.live.verdict, b.live.agent);
        const ids = await this.store.insert(batch.map((b) => b.call));
        await this.moduleRef
          .get(ShadowEvaluator, { strict: false })
          .evaluate(batch.map((b, i) => ({ id: ids[i], call: b.call, live: b.live, metadata: b.metadata })));
      } catch (err) {
        this.logger.error(`${batch.length} policy decision(s) not recorded: ${(err as Error).message}`);
      }
    }
  }
}
