import { Injectable, Logger } from '@nestjs/common';
import type { HookRegistry, LiveDecision, ToolCallMetadata } from '@warden/hooks';
import type { RecordedCall } from './decision-store.js';
import { differences } from './policy-decision.js';
import { PolicyEvaluator, type CandidateSetup } from './policy-evaluator.js';
import { ShadowStore, type Shadow, type ShadowResult } from './shadow-store.js';

/** A live decision just written, with what the shadows need to decide the same call. */
export interface RecordedDecision {
  id: string;
  call: RecordedCall;
  live: LiveDecision;
  metadata: ToolCallMetadata;
}

type Built = { registry: HookRegistry; setup: CandidateSetup } | null;

/**
 * Lets every active shadow of the org decide the calls the live policy just decided: the same call, the same model
 * args, the same tool metadata, in dry-run mode (PolicyEvaluator: no human asked, nothing sent, nothing rewritten
 * for real; command and HTTP hooks of a shadow are never run — a shadow on live traffic must not call out — and
 * are listed as `skipped`). Runs in the DecisionRecorder's background loop, never on the call's path.
 */
@Injectable()
export class ShadowEvaluator {
  private readonly logger = new Logger(ShadowEvaluator.name);

  constructor(
    private readonly store: ShadowStore,
    private readonly evaluator: PolicyEvaluator,
  ) {}

  async evaluate(items: RecordedDecision[]): Promise<void> {
    if (items.length === 0) return;
    const shadows = await this.store.activeIn([...new Set(items.map((i) => i.call.orgId))]);
    if (shadows.length === 0) return;
    const built = new Map<string, Built>();
    const results: ShadowResult[] = [];
    for (const item of items) {
      for (const shadow of shadows.filter((s) => applies(s, item.call))) {
        const chain = await this.chainFor(shadow, item, built);
        if (!chain) continue;
        const { decision, skipped } = await this.evaluator.decide(
          chain.registry,
          chain.setup,
          evaluated(item.call),
          toolMetadata(item.metadata),
        );
        results.push({
          shadowId: shadow.id,
          decisionId: item.id,
          decision,
          skipped,
          differences: differences(item.call.decision, decision),
        });
      }
    }
    await this.store.insertResults(results);
  }

  /** The shadow's chain for the item's agent, built once per batch (null when it does not build: logged). */
  private async chainFor(shadow: Shadow, item: RecordedDecision, built: Map<string, Built>): Promise<Built> {
    const key = `${shadow.id}:${item.call.agentId}`;
    if (built.has(key)) return built.get(key) ?? null;
    let chain: Built = null;
    try {
      const setup: CandidateSetup =
        shadow.subjectType === 'org_hooks'
          ? {
              hooksConfig: item.live.hooksConfig,
              agent: item.live.agent ?? (await this.evaluator.setup(item.call.orgId, item.call.agentId ?? '')).agent,
              orgHooks: shadow.config,
            }
          : await this.evaluator.setup(item.call.orgId, shadow.subjectId, { type: 'agent', config: shadow.config });
      chain = { registry: await this.evaluator.registry(setup), setup };
    } catch (err) {
      this.logger.warn(`shadow ${shadow.id} cannot be built: ${(err as Error).message}`);
    }
    built.set(key, chain);
    return chain;
  }
}

/** A shadow sees the calls of its subject decided after it was deployed. */
function applies(shadow: Shadow, call: RecordedCall): boolean {
  if (shadow.orgId !== call.orgId || call.createdAt < shadow.deployedAt) return false;
  return shadow.subjectType === 'org_hooks' || shadow.subjectId === call.agentId;
}

const evaluated = (c: RecordedCall) => ({
  orgId: c.orgId,
  agentId: c.agentId ?? '',
  userId: c.userId ?? '',
  tool: c.tool,
  args: c.args,
  runId: c.runId,
  callId: c.callId,
});

const RUN_KEYS = new Set([
  'agent',
  'canPark',
  'resumedAtGate',
  'decidingAgain',
  'confirmationAsks',
  'approvedBy',
  'dryRun',
  'externalHooks',
  'turnCallIds',
]);

/** The tool's metadata without what belongs to the live run (its parking, its approval, its agent, its asks). */
function toolMetadata(m: ToolCallMetadata): ToolCallMetadata {
  return Object.fromEntries(Object.entries(m).filter(([k]) => !RUN_KEYS.has(k)));
}
