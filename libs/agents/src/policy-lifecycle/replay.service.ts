import { Injectable } from '@nestjs/common';
import { BadInputError, NotFoundError } from '@warden/common';
import { PolicyVersions, type HookRegistry, type PolicySubject } from '@warden/hooks';
import { agentPolicy } from '../agents/agent-policy.js';
import { AgentsService } from '../agents/agents.service.js';
import { CandidateCheck } from './candidate-check.js';
import { DecisionRecorder } from './decision-recorder.js';
import { DecisionStore, type PageMark, type StoredCall } from './decision-store.js';
import { differences, type Decision, type Difference } from './policy-decision.js';
import { PolicyEvaluator, type Candidate, type CandidateSetup } from './policy-evaluator.js';
import { checkCallCount, replayWindow } from './replay-window.js';
import { count, emptySummary, summaryText } from './replay-summary.js';

export interface ReplayRequest {
  config?: Record<string, unknown>;
  version?: number;
  from: string;
  to: string;
  agent?: string;
  allow_external_hooks?: boolean;
}

export interface ReplayChange {
  decision_id: string;
  run_id: string | null;
  call_id: string | null;
  agent_id: string | null;
  user_id: string | null;
  tool: string;
  args: Record<string, unknown>;
  at: Date;
  old: Decision;
  new: Decision;
  differences: Difference[];
  skipped: string[];
}

const PAGE = 2000;
/** The most changed calls a replay lists (the summary counts them all). */
export const REPLAY_MAX_LISTED = 10_000;

/**
 * What-if (#34): decides the recorded calls of a window under a candidate policy — the args, tool, user and agent
 * each call had when the live policy decided it — and compares with what the live policy decided. Candidate: an
 * agent's policy (`agent` given) or the org hooks, as a config or one of the subject's versions. Nothing is executed;
 * command and HTTP hooks run only with `allow_external_hooks` (then through the egress policy, like a run's).
 */
@Injectable()
export class ReplayService {
  constructor(
    private readonly store: DecisionStore,
    private readonly evaluator: PolicyEvaluator,
    private readonly check: CandidateCheck,
    private readonly versions: PolicyVersions,
    private readonly agents: AgentsService,
    private readonly recorder: DecisionRecorder,
  ) {}

  async replay(orgId: string, body: ReplayRequest) {
    const candidate = await this.candidate(orgId, body);
    const window = replayWindow(body.from, body.to);
    await this.recorder.drain(); // the calls this instance decided a moment ago are part of the window
    checkCallCount(await this.store.count(orgId, window.from, window.to, body.agent));
    const chains = new Map<string, Promise<{ registry: HookRegistry; setup: CandidateSetup }>>();
    const chainOf = (agentId: string) => {
      let chain = chains.get(agentId);
      if (!chain) {
        chain = this.evaluator
          .setup(orgId, agentId, candidate)
          .then(async (setup) => ({ setup, registry: await this.evaluator.registry(setup) }));
        chains.set(agentId, chain);
      }
      return chain;
    };
    const tools = await this.evaluator.toolsOf(orgId);
    const summary = emptySummary();
    const changes: ReplayChange[] = [];
    const allowExternal = body.allow_external_hooks === true;
    const pageAfter = (after: PageMark | null) =>
      this.store.page(orgId, { ...window, agentId: body.agent }, after, PAGE);
    // The next page is read while this one is decided (the database works while the evaluation does).
    for (let pending = pageAfter(null); ;) {
      const { calls, next } = await pending;
      if (!next) break;
      pending = pageAfter(next);
      // Awaited on the next turn; should a decision below throw first, its failure must not go unhandled.
      pending.catch(() => undefined);
      for (const call of calls) {
        const { registry, setup } = await chainOf(call.agentId ?? '');
        const evaluated = { ...call, agentId: call.agentId ?? '', userId: call.userId ?? '' };
        const metadata = this.evaluator.metadata(tools, call.tool, call.args);
        const { decision, skipped } = await this.evaluator.decide(registry, setup, evaluated, metadata, allowExternal);
        const diff = differences(call.decision, decision);
        count(summary, call.decision, decision, diff, skipped);
        if (diff.length && changes.length < REPLAY_MAX_LISTED) changes.push(change(call, decision, diff, skipped));
      }
    }
    summary.text = summaryText(summary);
    return {
      from: window.from,
      to: window.to,
      agent: body.agent ?? null,
      summary,
      changes,
      truncated: summary.changed > changes.length,
    };
  }

  /** The candidate the request names (exactly one of config or version), checked like a save. */
  private async candidate(orgId: string, body: ReplayRequest): Promise<Candidate> {
    if ((body.config === undefined) === (body.version === undefined))
      throw new BadInputError('give exactly one of config or version');
    const subject: PolicySubject = body.agent
      ? agentPolicy(orgId, body.agent)
      : { orgId, type: 'org_hooks', id: orgId };
    if (body.agent) await this.agents.find(orgId, body.agent);
    let config = body.config;
    if (body.version !== undefined) {
      config = (
        await this.versions.get(subject, body.version).catch((err: unknown) => {
          if (!(err instanceof NotFoundError)) throw err;
          const policy = body.agent ? `policy of agent ${body.agent}` : 'org hooks';
          throw new BadInputError(`version ${body.version} is not a version of the ${policy}`);
        })
      ).config;
    }
    const candidate = { type: subject.type, config: config ?? {} };
    await this.check.check(orgId, candidate, body.agent);
    return candidate;
  }
}

function change(call: StoredCall, decision: Decision, diff: Difference[], skipped: string[]): ReplayChange {
  return {
    decision_id: call.id,
    run_id: call.runId,
    call_id: call.callId,
    agent_id: call.agentId,
    user_id: call.userId,
    tool: call.tool,
    args: call.args,
    at: call.createdAt,
    old: call.decision,
    new: decision,
    differences: diff,
    skipped,
  };
}
