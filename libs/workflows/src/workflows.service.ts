import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { AgentsService, ToolRegistry } from '@warden/agents';
import { AuditTrail, BadInputError, ConflictError, isUuid, NotFoundError } from '@warden/common';
import { HookResolver } from '@warden/hooks';
import { Repository } from 'typeorm';
import { nodeField, validateWorkflowDefinition, type WorkflowDefinition } from './workflow-definition.js';
import { Workflow } from './workflow.entity.js';

/** A tool a CONNECTOR node may call, as the designer's action picker shows it. */
export interface WorkflowTool {
  name: string;
  kind: 'connector' | 'mcp';
  source: string;
  action: string;
  description: string;
  parameters: Record<string, unknown>;
  write: boolean;
}

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
    const problems = await this.problems(orgId, definition);
    if (problems.length) throw new BadInputError(`invalid workflow: ${problems.join('; ')}`, problems);
    return definition as WorkflowDefinition;
  }

  /** What saving the definition would refuse, one message each (the messages a save's 400 carries). */
  async problems(orgId: string, definition: unknown): Promise<string[]> {
    const problems = validateWorkflowDefinition(definition);
    if (problems.length) return problems;
    for (const node of (definition as WorkflowDefinition).nodes) {
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
        const known = (await this.tools.forAgent(orgId, [tool])).some(
          (t) => t.spec.name === tool && t.kind !== 'builtin',
        );
        if (!known) problems.push(`node ${node.id}: unknown connector tool "${tool}"`);
        for (const p of await this.hooks.validate(node.hooks ?? {})) problems.push(`node ${node.id}: ${p}`);
      }
    }
    return problems;
  }

  /** The tools a CONNECTOR node may name: connector actions and MCP tools (not the built-ins), without secrets. */
  async callableTools(orgId: string): Promise<WorkflowTool[]> {
    const tools: WorkflowTool[] = [];
    for (const t of await this.tools.all(orgId)) {
      const { name, description, parameters } = t.spec;
      if (t.kind === 'connector')
        tools.push({
          name,
          kind: 'connector',
          source: t.connector.connector.name,
          action: t.connector.action.name,
          description,
          parameters,
          write: t.connector.action.write,
        });
      if (t.kind === 'mcp')
        tools.push({
          name,
          kind: 'mcp',
          source: t.mcp.server.name,
          action: t.mcp.tool,
          description,
          parameters,
          write: t.mcp.write,
        });
    }
    return tools.sort((a, b) => a.name.localeCompare(b.name));
  }

  async create(orgId: string, userId: string, name: string, definition: unknown): Promise<Workflow> {
    const def = await this.validate(orgId, definition);
    if (await this.workflows.existsBy({ orgId, name }))
      throw new ConflictError(`a workflow named "${name}" already exists`);
    return this.workflows.manager.transaction(async (m) => {
      const saved = await m.save(Workflow, m.create(Workflow, { orgId, name, definition: def, createdBy: userId }));
      await this.audit.configChange(
        {
          orgId,
          actor: userId,
          entityType: 'workflow',
          entityId: saved.id,
          change: 'created',
          before: null,
          after: audited(saved),
        },
        m,
      );
      return saved;
    });
  }

  async update(
    orgId: string,
    id: string,
    patch: { name?: string; definition?: unknown },
    actor: string | null = null,
  ): Promise<Workflow> {
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
