import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { AppConfig, EgressPolicy, findCycle, isUuid } from '@warden/common';
import { HookResolver } from '@warden/hooks';
import { In, Repository } from 'typeorm';
import { LlmCredentialsService } from '../llm-credentials/llm-credentials.service.js';
import { operatorKeyOriginProblem } from '../llm/llm-key-origin.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { unknownConfigKeys } from './agent-config-keys.js';
import { parseAgentConfig, type AgentConfig } from './agent-config.js';
import { Agent } from './agent.entity.js';

/**
 * What a save of an agent's config would refuse, each problem by path: the checks that need the org (its tools,
 * credentials, agents, hooks) beyond the config's own parse. Apart from AgentsService, which saves.
 */
@Injectable()
export class AgentConfigCheck {
  constructor(
    @InjectRepository(Agent) private readonly agents: Repository<Agent>,
    private readonly tools: ToolRegistry,
    private readonly hooks: HookResolver,
    private readonly config: AppConfig,
    private readonly credentials: LlmCredentialsService,
    private readonly egress: EgressPolicy,
  ) {}

  /** Every problem of `json` as the config of agent `selfId` (absent for a new agent) of `orgId`. */
  async problemsOf(orgId: string, json: Record<string, unknown>, selfId?: string): Promise<string[]> {
    const { config, problems } = parseAgentConfig(json);
    problems.unshift(...unknownConfigKeys(json));
    problems.push(...(await this.modelProblems(orgId, config.model)));
    for (const pattern of await this.tools.unknownPatterns(orgId, config.tools)) {
      problems.push(`unknown tool "${pattern}": no connector action or built-in tool matches it`);
    }
    problems.push(...(await this.delegateProblems(orgId, config.delegates, selfId)));
    if (config.hooks !== undefined) problems.push(...(await this.hooks.validate(config.hooks)));
    return problems;
  }

  /** Where the model's key comes from (an allowed variable bound to its origin, or a usable credential) and its URL. */
  private async modelProblems(orgId: string, model: AgentConfig['model']): Promise<string[]> {
    const problems: string[] = [];
    const keyEnv = model.apiKeyEnv;
    if (keyEnv !== undefined && !this.config.llmKeyEnvAllowed(keyEnv)) {
      problems.push(
        `model_config_json.model.api_key_env "${keyEnv}" is not an allowed key variable: ` +
          `name one matching LLM_KEY_ENV_ALLOW (${this.config.llmKeyEnvAllow.join(', ')})`,
      );
    } else if (keyEnv !== undefined) {
      const originProblem = operatorKeyOriginProblem(this.config, keyEnv, model.baseUrl);
      if (originProblem) problems.push(`model_config_json.model.api_key_env ${originProblem}`);
    }
    if (model.provider === 'openai' && model.baseUrl) {
      const egress = await this.egress.savedUrlProblem('model_config_json.model.base_url', model.baseUrl);
      if (egress) problems.push(egress);
    }
    const credentialId = model.apiKeyCredentialId;
    const credentialProblem =
      credentialId !== undefined && (await this.credentials.useProblem(orgId, credentialId, model.baseUrl));
    if (credentialProblem)
      problems.push(`model_config_json.model.api_key_credential_id "${credentialId}" ${credentialProblem}`);
    return problems;
  }

  /** Each delegate an agent of the org other than itself, and no cycle through the delegates graph. */
  private async delegateProblems(orgId: string, delegates: string[], selfId?: string): Promise<string[]> {
    const problems: string[] = [];
    const delegateIds = delegates.filter(isUuid);
    const found = new Set(
      delegateIds.length ? (await this.agents.findBy({ orgId, id: In(delegateIds) })).map((a) => a.id) : [],
    );
    for (const d of delegates) {
      if (d === selfId) problems.push(`delegate "${d}" is this agent itself`);
      else if (!found.has(d)) problems.push(`unknown delegate "${d}": no agent with this id in the org`);
    }
    if (selfId && delegates.some((d) => found.has(d))) {
      const cycle = await this.delegationCycle(
        orgId,
        selfId,
        delegates.filter((d) => found.has(d)),
      );
      if (cycle) problems.push(`delegates form a cycle: ${cycle.join(' -> ')}`);
    }
    return problems;
  }

  /** A cycle in the delegates graph reachable from `selfId` (with the proposed delegates), or null. */
  private async delegationCycle(orgId: string, selfId: string, delegates: string[]): Promise<string[] | null> {
    const all = await this.agents.findBy({ orgId });
    const edges = new Map(all.map((a) => [a.id, parseAgentConfig(a.modelConfigJson).config.delegates]));
    edges.set(selfId, delegates);
    return findCycle(edges, [selfId]);
  }
}
