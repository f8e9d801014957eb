import { Injectable, Optional } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { AuditTrail, BadInputError, isUuid, NotFoundError } from '@warden/common';
import { ConfigCache } from '@warden/database';
import { PolicyTestGate, PolicyVersions, type VersionOrigin } from '@warden/hooks';
import { Repository } from 'typeorm';
import { AgentConfigCheck } from './agent-config-check.js';
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
    private readonly check: AgentConfigCheck,
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

  /** Every problem at once, each named; nothing is saved when there is one. */
  private async validate(orgId: string, dto: AgentDto, selfId?: string): Promise<void> {
    const problems = await this.problemsOf(orgId, dto.model_config_json, selfId);
    if (problems.length > 0) throw new BadInputError(`invalid agent: ${problems.join('; ')}`, problems);
  }

  /** What a save of this config would refuse (POST /api/agents/validate asks as the admin types), each by path. */
  problemsOf(orgId: string, json: Record<string, unknown>, selfId?: string): Promise<string[]> {
    return this.check.problemsOf(orgId, json, selfId);
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
