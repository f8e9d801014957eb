import { Injectable } from '@nestjs/common';
import { BadInputError } from '@warden/common';
import { HookResolver } from '@warden/hooks';
import { parseAgentConfig } from '../agents/agent-config.js';
import { POLICY_KEYS, withPolicy } from '../agents/agent-policy.js';
import { AgentsService } from '../agents/agents.service.js';
import type { Candidate } from './policy-evaluator.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks a candidate policy like a save would (a shadow, a replay or a test run of a config that would not save is
 * refused): 400 listing every problem, each named. An agent's candidate is its policy fragment
 * (`{ hooks?, confirmation?, require_confirmation_for_all? }`); the org's is its hooks.
 */
@Injectable()
export class CandidateCheck {
  constructor(
    private readonly resolver: HookResolver,
    private readonly agents: AgentsService,
  ) {}

  async check(orgId: string, candidate: Candidate, agentId?: string): Promise<void> {
    const problems =
      candidate.type === 'org_hooks'
        ? await this.resolver.validateOrg(candidate.config)
        : await this.agentProblems(orgId, candidate.config, agentId);
    if (problems.length) throw new BadInputError(`the candidate policy is invalid: ${problems.join('; ')}`, problems);
  }

  private async agentProblems(orgId: string, policy: unknown, agentId?: string): Promise<string[]> {
    if (!isObject(policy))
      return ['policy: must be an object with hooks, confirmation and/or require_confirmation_for_all'];
    const unknown = Object.keys(policy).filter((k) => !(POLICY_KEYS as readonly string[]).includes(k));
    if (unknown.length) return unknown.map((k) => `policy.${k}: unknown key (expected ${POLICY_KEYS.join(', ')})`);
    const base = agentId
      ? (await this.agents.find(orgId, agentId)).modelConfigJson
      : { model: { provider: 'scripted', script: [] } };
    const policyProblems = parseAgentConfig(withPolicy(base, policy)).problems.filter((p) =>
      POLICY_KEYS.some((k) => p.includes(`model_config_json.${k}`)),
    );
    return [...policyProblems, ...(await this.resolver.validate(policy.hooks))];
  }
}
