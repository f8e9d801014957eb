import { Injectable } from '@nestjs/common';
import { BadInputError, canonicalJson } from '@warden/common';
import type { HookRegistry, PolicySubject, ToolArgs } from '@warden/hooks';
import type { ResolvedTool } from '../../tools/tool-registry.js';
import { PolicyEvaluator, type Candidate, type CandidateSetup } from '../policy-evaluator.js';
import type { Decision } from '../policy-decision.js';
import type { ExpectedDecision, PolicyTestCase } from './policy-test-case.js';

/** What one case got: its decision (`deny` for a block) and the args the chain left, beside what it expected. */
export interface PolicyTestResult {
  name: string;
  pass: boolean;
  /** Each way the actual outcome misses the expectation ("decision: expected deny, got allow"). */
  failures: string[];
  expected: PolicyTestCase['expect'];
  actual: {
    decision: ExpectedDecision;
    approvals: number;
    tier: number | null;
    blocked_by: string | null;
    reason: string | null;
    /** The args as the chain left them, or null when it did not rewrite them. */
    rewrite: ToolArgs | null;
  };
  /** Command/HTTP hooks of the candidate not run (their verdict is unknown). */
  skipped: string[];
}

const USER = 'policy-test';

/**
 * Runs policy test cases against a candidate (or, with none, the live policy) with the dry-run engine replays and
 * shadows use (PolicyEvaluator: the run's own PreToolUse chain in dry-run mode): nothing asked, sent or written.
 */
@Injectable()
export class PolicyTestRunner {
  constructor(private readonly evaluator: PolicyEvaluator) {}

  /** 400 naming each case whose tool the org does not have. */
  async checkTools(orgId: string, cases: PolicyTestCase[]): Promise<void> {
    const tools = await this.evaluator.toolsOf(orgId);
    const problems = cases.flatMap((c, i) =>
      tools.has(c.tool) ? [] : [`cases[${i}].tool: unknown tool "${c.tool}" (case "${c.name}")`],
    );
    if (problems.length) throw new BadInputError(`the test cases name unknown tools: ${problems.join('; ')}`, problems);
  }

  async run(subject: PolicySubject, cases: PolicyTestCase[], candidate?: Candidate): Promise<PolicyTestResult[]> {
    const tools = await this.evaluator.toolsOf(subject.orgId);
    const chains = new Map<string, Promise<{ registry: HookRegistry; setup: CandidateSetup }>>();
    const chainOf = (agentId: string) => {
      let chain = chains.get(agentId);
      if (!chain) {
        chain = this.evaluator
          .setup(subject.orgId, agentId, candidate)
          .then(async (setup) => ({ setup, registry: await this.evaluator.registry(setup) }));
        chains.set(agentId, chain);
      }
      return chain;
    };
    const results: PolicyTestResult[] = [];
    for (const c of cases) {
      const agentId = subject.type === 'agent' ? subject.id : (c.agent ?? '');
      results.push(await this.runCase(c, agentId, subject.orgId, tools, await chainOf(agentId)));
    }
    return results;
  }

  private async runCase(
    c: PolicyTestCase,
    agentId: string,
    orgId: string,
    tools: Map<string, ResolvedTool>,
    chain: { registry: HookRegistry; setup: CandidateSetup },
  ): Promise<PolicyTestResult> {
    // A copy as JSON states it (a hook may change the args it gets; CEL refuses objects of another realm).
    const args = JSON.parse(JSON.stringify(c.args)) as ToolArgs;
    const call = { orgId, agentId, userId: c.user ?? USER, tool: c.tool, args };
    const metadata = this.evaluator.metadata(tools, c.tool, args);
    const { decision, args: after, skipped } = await this.evaluator.decide(chain.registry, chain.setup, call, metadata);
    const actual = {
      decision: asExpected(decision),
      approvals: decision.approvals,
      tier: decision.tier,
      blocked_by: decision.blocked_by,
      reason: decision.reason,
      rewrite: decision.rewritten ? after : null,
    };
    const failures = failuresOf(c.expect, actual);
    return { name: c.name, pass: failures.length === 0, failures, expected: c.expect, actual, skipped };
  }
}

const asExpected = (d: Decision): ExpectedDecision => (d.decision === 'block' ? 'deny' : d.decision);

function failuresOf(expected: PolicyTestCase['expect'], actual: PolicyTestResult['actual']): string[] {
  const out: string[] = [];
  if (expected.decision !== actual.decision)
    out.push(`decision: expected ${expected.decision}, got ${actual.decision}`);
  if (expected.approvals !== undefined && actual.decision === 'ask' && expected.approvals !== actual.approvals) {
    out.push(`approvals: expected ${expected.approvals}, got ${actual.approvals}`);
  }
  if (expected.rewrite === null && actual.rewrite !== null)
    out.push(`rewrite: expected none, got ${canonicalJson(actual.rewrite)}`);
  if (
    expected.rewrite &&
    (actual.rewrite === null || canonicalJson(expected.rewrite) !== canonicalJson(actual.rewrite))
  ) {
    const got = actual.rewrite ? canonicalJson(actual.rewrite) : 'none';
    out.push(`rewrite: expected ${canonicalJson(expected.rewrite)}, got ${got}`);
  }
  return out;
}
