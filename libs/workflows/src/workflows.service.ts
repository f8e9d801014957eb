import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { AgentsService, ToolRegistry } from '@warden/agents';
import { AuditTrail, BadInputError, ConflictError, isUuid, NotFoundError } from '@warden/common';
import { HookResolver } from '@warden/hooks';
import { Repository } from 'typeorm';
import { nodeField, validateWorkflowDefinition, type WorkflowDefinition } from './workflow-definition.js';
import { Workflow } from './workflow.entity.js';

@Injectable()
export class WorkflowsService {
  constructor(
    @InjectRepository(Workflow) private readonly workflows: Repository<Workflow>,
    private readonly agents: AgentsService,
    private readonly tools: ToolRegistry,
    private readonly hooks: HookResolver,
    private readonly audit: AuditTrail,
  ) {}

  /** Structure plus references: every agent must exist in the org, every connector tool must be known. */
  async validate(orgId: string, definition: unknown): Promise<WorkflowDefinition> {
    const problems = validateWorkflowDefinition(definition);
    if (problems.length === 0) {
      const def = definition as WorkflowDefinition;
      for (const node of def.nodes) {
        if (node.type === 'agent') {
          const agentId = nodeField(node, 'agent_id');
          const exists =
            isUuid(agentId) &&
            (await this.agents.findWithConfig(orgId, agentId).then(
              () => true,
              () => false,
            ));
          if (!exists) problems.push(`node ${node.id}: unknown agent "${agentId}"`);
        }
        if (node.type === 'connector') {
          const tool = nodeField(node, 'tool');
          const known = (await this.tools.forAgent(orgId, [tool])).some((t) => t.spec.name === tool && t.kind !== 'builtin');
          if (!known) problems.push(`node ${node.id}: unknown connector tool "${tool}"`);
          for (const p of await this.hooks.validate(node.hooks ?? {})) problems.push(`node ${node.id}: ${p}`);
        }
      }
    }
    if (problems.length) throw new BadInputError(`invalid workflow: ${problems.join('; ')}`, problems);
    return definition as WorkflowDefinition;
  }

  async create(orgId: string, userId: string, name: string, definition: unknown): Promise<Workflow> {
    const def = await this.validate(orgId, definition);
    if (await this.workflows.existsBy({ orgId, name })) throw new ConflictError(`a workflow named "${name}" already exists`);
    return this.workflows.manager.transaction(async (m) => {
      const saved = await m.save(Workflow, m.create(Workflow, { orgId, name, definition: def, createdBy: userId }));
      await this.audit.configChange(
        { orgId, actor: userId, entityType: 'workflow', entityId: saved.id, change: 'created', before: null, after: audited(saved) },
        m,
      );
      return saved;
    });
  }

  async update(orgId: string, id: string, patch: { name?: string; definition?: unknown }, actor: string | null = null): Promise<Workflow> {
    const wf = await this.get(orgId, id);
    const before = audited(wf);
    if (patch.definition !== undefined) wf.definition = await this.validate(orgId, patch.definition);
    if (patch.name !== undefined) wf.name = patch.name;
    return this.workflows.manager.transaction(async (m) => {
      const saved = await m.save(Workflow, wf);
      await this.audit.configChange(
        { orgId, actor, entityType: 'workflow', entityId: id, change: 'updated', before, after: audited(saved) },
        m,
      );
      return saved;
    });
  }

  async list(orgId: string): Promise<Workflow[]> {
    return this.workflows.find({ where: { orgId }, order: { createdAt: 'DESC' } });
  }

  async get(orgId: string, id: string): Promise<Workflow> {
    const wf = isUuid(id) ? await this.workflows.findOneBy({ id, orgId }) : null;
    if (!wf) throw new NotFoundError('workflow', id);
    return wf;
  }

  async remove(orgId: string, id: string, actor: string | null = null): Promise<void> {
    const wf = await this.get(orgId, id);
    await this.workflows.manager.transaction(async (m) => {
      await m.delete(Workflow, { id: wf.id });
      await this.audit.configChange(
        { orgId, actor, entityType: 'workflow', entityId: id, change: 'deleted', before: audited(wf), after: null },
        m,
      );
    });
  }
}

/** A workflow as its configuration audit records it (node confirmation policies included). */
function audited(wf: Workflow): Record<string, unknown> {
  return { name: wf.name, definition: wf.definition };
}
