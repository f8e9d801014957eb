import { Injectable, Optional } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { AppConfig, AuditTrail, BadInputError, EgressPolicy, findCycle, isUuid, NotFoundError } from '@warden/common';
import { ConfigCache } from '@warden/database';
import { HookResolver, PolicyTestGate, PolicyVersions, type VersionOrigin } from '@warden/hooks';
import { In, Repository } from 'typeorm';
import { LlmCredentialsService } from '../llm-credentials/llm-credentials.service.js';
import { operatorKeyOriginProblem } from '../llm/llm-key-origin.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { unknownConfigKeys } from './agent-config-keys.js';
import { parseAgentConfig, type AgentConfig } from './agent-config.js';
import { agentPolicy, policyOf, withPolicy } from './agent-policy.js';
import { Agent } from './agent.entity.js';
import type { AgentDto } from './dto/agent.dto.js';

export interface AgentView {
  id: string;
  name: string;
  instructions: string;
  model_config_json: Record<string, unknown>;
  owner_user_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/** Agents of one org; a row of another org is "not found". */
@Injectable()
export class AgentsService {
  constructor(
    @InjectRepository(Agent) private readonly agents: Repository<Agent>,
    private readonly tools: ToolRegistry,
    private readonly hooks: HookResolver,
    private readonly config: AppConfig,
    private readonly credentials: LlmCredentialsService,
    private readonly egress: EgressPolicy,
    private readonly audit: AuditTrail,
    private readonly cache: ConfigCache,
    private readonly versions: PolicyVersions,
    @Optional() private readonly tests?: PolicyTestGate,
  ) {}

  async list(orgId: string): Promise<AgentView[]> {
    return (await this.agents.find({ where: { orgId }, order: { createdAt: 'ASC' } })).map(view);
  }

  async get(orgId: string, id: string): Promise<AgentView> {
    return view(await this.find(orgId, id));
  }

  async find(orgId: string, id: string): Promise<Agent> {
    const agent = isUuid(id) ? await this.agents.findOneBy({ id, orgId }) : null;
    if (!agent) throw new NotFoundError('agent', id);
    return agent;
  }

  /**
   * The agent, its typed config (a stored config that no longer parses still yields defaults) and the number of its
   * policy version, read in one snapshot so a run records the version of the policy it got.
   */
  async findWithConfig(
    orgId: string,
    id: string,
  ): Promise<{ agent: Agent; config: AgentConfig; policyVersion: number | null }> {
    // What runs read (cached until a change): the agent and its parsed config are shared, never modified.
    return this.cache.get(orgId, `agent:${id}`, () =>
      this.agents.manager.transaction('REPEATABLE READ', async (m) => {
        const agent = isUuid(id) ? await m.findOneBy(Agent, { id, orgId }) : null;
        if (!agent) throw new NotFoundError('agent', id);
        const policyVersion = await this.versions.latest(agentPolicy(orgId, id), m);
        return { agent, config: parseAgentConfig(agent.modelConfigJson).config, policyVersion };
      }),
    );
  }

  async create(orgId: string, ownerUserId: string, dto: AgentDto): Promise<AgentView> {
    await this.validate(orgId, dto);
    // The change and its audit event commit together.
    const saved = await this.agents.manager.transaction(async (m) => {
      const row = await m.save(
        Agent,
        m.create(Agent, {
          orgId,
          ownerUserId,
          name: dto.name,
          instructions: dto.instructions ?? '',
          modelConfigJson: dto.model_config_json,
        }),
      );
      // Its policy is version 1 (whatever it holds): every run of the agent names a version.
      const policyVersion = await this.versions.record(
        agentPolicy(orgId, row.id),
        policyOf(row.modelConfigJson),
        { createdBy: ownerUserId, comment: dto.comment },
        m,
      );
      await this.audit.configChange(
        {
          orgId,
          actor: ownerUserId,
          entityType: 'agent',
          entityId: row.id,
          change: 'created',
          before: null,
          after: audited(row),
          policyVersion,
        },
        m,
      );
      return row;
    });
    this.cache.invalidate(orgId);
    return view(saved);
  }

  /** Every change is audited with its diff (hooks and approver policy included) and who made it. */
  async update(orgId: string, id: string, dto: AgentDto, actor: string | null): Promise<AgentView> {
    const existing = await this.find(orgId, id);
    await this.validate(orgId, dto, id);
    return this.save(existing, dto, { createdBy: actor, comment: dto.comment }, dto.force === true);
  }

  /** Puts back the policy of `version` (the rest of the config stays), checked like a save; itself a new version. */
  async rollbackPolicy(
    orgId: string,
    id: string,
    version: number,
    actor: string | null,
    opts: { comment?: string; force?: boolean } = {},
  ): Promise<AgentView> {
    const existing = await this.find(orgId, id);
    const target = await this.versions.get(agentPolicy(orgId, id), version).catch((err: unknown) => {
      if (err instanceof NotFoundError)
        throw new BadInputError(`version ${version} is not a policy version of agent ${id}`);
      throw err;
    });
    const dto: AgentDto = {
      name: existing.name,
      instructions: existing.instructions,
      model_config_json: withPolicy(existing.modelConfigJson, target.config),
    };
    await this.validate(orgId, dto, id);
    return this.save(
      existing,
      dto,
      { createdBy: actor, comment: opts.comment, rolledBackTo: version },
      opts.force === true,
    );
  }

  /**
   * The change, its policy version (when the policy changed, or on a rollback) and its audit event commit together.
   * The policy's tests run first (409 naming the failing cases unless `force`; forced, they are recorded).
   */
  private async save(existing: Agent, dto: AgentDto, checked: VersionOrigin, force: boolean): Promise<AgentView> {
    const { orgId, id } = existing;
    const testsForced = (await this.tests?.check(agentPolicy(orgId, id), policyOf(dto.model_config_json), force)) ?? [];
    const origin = { ...checked, testsForced };
    const before = audited(existing);
    const saved = await this.agents.manager.transaction(async (m) => {
      // Changes of one agent's policy are serialized, so concurrent saves get consecutive versions in commit order.
      await this.versions.lock(agentPolicy(orgId, id), m);
      // `existing` is this request's own copy (just loaded); `before` was taken from it above.
      const row = await m.save(
        Object.assign(existing, {
          name: dto.name,
          instructions: dto.instructions ?? '',
          modelConfigJson: dto.model_config_json,
        }),
      );
      const policyVersion = await this.versions.record(
        agentPolicy(orgId, id),
        policyOf(row.modelConfigJson),
        origin,
        m,
      );
      const change = origin.rolledBackTo === undefined ? 'updated' : 'rolled_back';
      await this.audit.configChange(
        {
          orgId,
          actor: origin.createdBy,
          entityType: 'agent',
          entityId: id,
          change,
          before,
          after: audited(row),
          policyVersion,
        },
        m,
      );
      return row;
    });
    this.cache.invalidate(orgId);
    return view(saved);
  }

  async remove(orgId: string, id: string, actor: string | null): Promise<void> {
    const existing = await this.find(orgId, id);
    await this.agents.manager.transaction(async (m) => {
      await m.delete(Agent, { id, orgId });
      await this.audit.configChange(
        { orgId, actor, entityType: 'agent', entityId: id, change: 'deleted', before: audited(existing), after: null },
        m,
      );
    });
    this.cache.invalidate(orgId);
  }

  /** A cycle in the delegates graph reachable from `selfId` (with the proposed delegates), or null. */
  private async delegationCycle(orgId: string, selfId: string, delegates: string[]): Promise<string[] | null> {
    const all = await this.agents.findBy({ orgId });
    const edges = new Map(all.map((a) => [a.id, parseAgentConfig(a.modelConfigJson).config.delegates]));
    edges.set(selfId, delegates);
    return findCycle(edges, [selfId]);
  }

  /** Every problem at once, each named; nothing is saved when there is one. */
  private async validate(orgId: string, dto: AgentDto, selfId?: string): Promise<void> {
    const problems = await this.problemsOf(orgId, dto.model_config_json, selfId);
    if (problems.length > 0) throw new BadInputError(`invalid agent: ${problems.join('; ')}`, problems);
  }

  /** What a save of this config would refuse (POST /api/agents/validate asks as the admin types), each by path. */
  async problemsOf(orgId: string, json: Record<string, unknown>, selfId?: string): Promise<string[]> {
    const { config, problems } = parseAgentConfig(json);
    problems.unshift(...unknownConfigKeys(json));
    const keyEnv = config.model.apiKeyEnv;
    if (keyEnv !== undefined && !this.config.llmKeyEnvAllowed(keyEnv)) {
      problems.push(
        `model_config_json.model.api_key_env "${keyEnv}" is not an allowed key variable: name one matching LLM_KEY_ENV_ALLOW (${this.config.llmKeyEnvAllow.join(', ')})`,
      );
    } else if (keyEnv !== undefined) {
      const originProblem = operatorKeyOriginProblem(this.config, keyEnv, config.model.baseUrl);
      if (originProblem) problems.push(`model_config_json.model.api_key_env ${originProblem}`);
    }
    if (config.model.provider === 'openai' && config.model.baseUrl) {
      const egress = await this.egress.savedUrlProblem('model_config_json.model.base_url', config.model.baseUrl);
      if (egress) problems.push(egress);
    }
    const credentialId = config.model.apiKeyCredentialId;
    const credentialProblem =
      credentialId !== undefined && (await this.credentials.useProblem(orgId, credentialId, config.model.baseUrl));
    if (credentialProblem)
      problems.push(`model_config_json.model.api_key_credential_id "${credentialId}" ${credentialProblem}`);
    for (const pattern of await this.tools.unknownPatterns(orgId, config.tools)) {
      problems.push(`unknown tool "${pattern}": no connector action or built-in tool matches it`);
    }
    const delegateIds = config.delegates.filter(isUuid);
    const found = new Set(
      delegateIds.length ? (await this.agents.findBy({ orgId, id: In(delegateIds) })).map((a) => a.id) : [],
    );
    for (const d of config.delegates) {
      if (d === selfId) problems.push(`delegate "${d}" is this agent itself`);
      else if (!found.has(d)) problems.push(`unknown delegate "${d}": no agent with this id in the org`);
    }
    if (selfId && config.delegates.some((d) => found.has(d))) {
      const cycle = await this.delegationCycle(
        orgId,
        selfId,
        config.delegates.filter((d) => found.has(d)),
      );
      if (cycle) problems.push(`delegates form a cycle: ${cycle.join(' -> ')}`);
    }
    if (config.hooks !== undefined) problems.push(...(await this.hooks.validate(config.hooks)));
    return problems;
  }
}

/** What an agent's configuration audit records (its model_config_json holds hooks and the approver policy). */
function audited(a: Agent): Record<string, unknown> {
  return {
    name: a.name,
    instructions: a.instructions,
    model_config_json: a.modelConfigJson,
    owner_user_id: a.ownerUserId,
  };
}

function view(a: Agent): AgentView {
  return {
    id: a.id,
    name: a.name,
    instructions: a.instructions,
    model_config_json: a.modelConfigJson,
    owner_user_id: a.ownerUserId,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
  };
}
