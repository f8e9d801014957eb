import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { AuditTrail, BadInputError, ConflictError, EgressPolicy, isUuid, NotFoundError } from '@warden/common';
import { ConfigCache, TransactionRunner } from '@warden/database';
import { Repository } from 'typeorm';
import { checkConfirmationCondition } from './confirmation-condition.js';
import { Connector, ConnectorAction, HTTP_METHODS, type HttpMethod } from './connector.entity.js';
import type { ConnectorActionDto, ConnectorDto } from './dto/connector.dto.js';
import { toolNameOf } from './tool-name.js';

const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const PATH_PARAM = /\{([^{}]*)\}/g;

/** A connector action as the runtime sees it: a named tool plus what is needed to call it. */
export interface ConnectorTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  connector: Connector;
  action: ConnectorAction;
}

export interface ConnectorView {
  id: string;
  name: string;
  base_url: string;
  /** Header values are secrets: only their names are shown. */
  header_keys: string[];
  tools: string[];
  actions: Array<{
    name: string;
    tool: string;
    method: HttpMethod;
    path: string;
    description: string;
    parameters: Record<string, unknown>;
    requires_confirmation: boolean;
    requires_confirmation_when: string | null;
    write: boolean;
  }>;
  created_at: Date;
  updated_at: Date;
}

@Injectable()
export class ConnectorsService {
  constructor(
    @InjectRepository(Connector) private readonly connectors: Repository<Connector>,
    @InjectRepository(ConnectorAction) private readonly actions: Repository<ConnectorAction>,
    private readonly tx: TransactionRunner,
    private readonly egress: EgressPolicy,
    private readonly audit: AuditTrail,
    private readonly cache: ConfigCache,
  ) {}

  async list(orgId: string): Promise<ConnectorView[]> {
    const rows = await this.connectors.find({ where: { orgId }, order: { name: 'ASC' } });
    return Promise.all(rows.map(async (c) => this.view(c, await this.actionsOf(c.id))));
  }

  async get(orgId: string, id: string): Promise<ConnectorView> {
    const c = await this.find(orgId, id);
    return this.view(c, await this.actionsOf(c.id));
  }

  async create(orgId: string, dto: ConnectorDto, actor: string | null = null): Promise<ConnectorView> {
    const actions = this.validate(dto);
    await this.checkEgress(dto.base_url);
    await this.assertNameFree(orgId, dto.name);
    const id = await this.tx.run(async ({ manager }) => {
      const c = await manager.save(
        Connector,
        manager.create(Connector, {
          orgId,
          name: dto.name,
          baseUrl: dto.base_url.replace(/\/+$/, ''),
          headers: dto.headers ?? {},
        }),
      );
      await manager.save(
        ConnectorAction,
        actions.map((a) => manager.create(ConnectorAction, { ...a, connectorId: c.id })),
      );
      return c.id;
    });
    this.cache.invalidate(orgId);
    const after = await this.get(orgId, id);
    await this.audit.configChange({
      orgId,
      actor,
      entityType: 'connector',
      entityId: id,
      change: 'created',
      before: null,
      after: audited(after),
    });
    return after;
  }

  /** Replaces the connector; headers left out keep their stored values (clients never see them to send back). */
  async update(orgId: string, id: string, dto: ConnectorDto, actor: string | null): Promise<ConnectorView> {
    const existing = await this.find(orgId, id);
    const before = await this.get(orgId, id);
    const actions = this.validate(dto);
    await this.checkEgress(dto.base_url);
    if (toolNameOf(dto.name, '') !== toolNameOf(existing.name, '')) await this.assertNameFree(orgId, dto.name, id);
    await this.tx.run(async ({ manager }) => {
      await manager.update(
        Connector,
        { id },
        {
          name: dto.name,
          baseUrl: dto.base_url.replace(/\/+$/, ''),
          headers: dto.headers ?? existing.headers,
        },
      );
      await manager.delete(ConnectorAction, { connectorId: id });
      await manager.save(
        ConnectorAction,
        actions.map((a) => manager.create(ConnectorAction, { ...a, connectorId: id })),
      );
    });
    this.cache.invalidate(orgId);
    const after = await this.get(orgId, id);
    // Header values are secrets: the audit says which changed, never what they are.
    const headers = dto.headers ?? existing.headers;
    const secretsChanged = [...new Set([...Object.keys(existing.headers ?? {}), ...Object.keys(headers ?? {})])]
      .filter((k) => existing.headers?.[k] !== headers?.[k])
      .map((k) => `headers.${k}`);
    await this.audit.configChange({
      orgId,
      actor,
      entityType: 'connector',
      entityId: id,
      change: 'updated',
      before: audited(before),
      after: audited(after),
      secretsChanged,
    });
    return after;
  }

  async remove(orgId: string, id: string, actor: string | null): Promise<void> {
    const before = await this.get(orgId, id);
    await this.connectors.delete({ id, orgId });
    this.cache.invalidate(orgId);
    await this.audit.configChange({
      orgId,
      actor,
      entityType: 'connector',
      entityId: id,
      change: 'deleted',
      before: audited(before),
      after: null,
    });
  }

  /** Every connector tool of the org (one query: actions joined with their connectors; cached until a change). */
  tools(orgId: string): Promise<ConnectorTool[]> {
    return this.cache.get(orgId, 'connector_tools', () => this.loadTools(orgId));
  }

  private async loadTools(orgId: string): Promise<ConnectorTool[]> {
    const rows = (await this.actions
      .createQueryBuilder('a')
      .innerJoinAndMapOne('a.owner', Connector, 'c', 'c.id = a.connector_id')
      .where('c.org_id = :orgId', { orgId })
      .orderBy('a.position', 'ASC')
      .addOrderBy('c.name', 'ASC')
      .getMany()) as Array<ConnectorAction & { owner: Connector }>;
    const byId = new Map<string, Connector>();
    return rows.map(({ owner, ...fields }) => {
      const connector = byId.get(owner.id) ?? byId.set(owner.id, owner).get(owner.id)!;
      const action = Object.assign(new ConnectorAction(), fields);
      return {
        name: toolNameOf(connector.name, action.name),
        description: action.description || `${action.method} ${action.path}`,
        parameters: action.parameters,
        connector,
        action,
      };
    });
  }

  async tool(orgId: string, name: string): Promise<ConnectorTool | undefined> {
    return (await this.tools(orgId)).find((t) => t.name === name);
  }

  private async find(orgId: string, id: string): Promise<Connector> {
    const c = isUuid(id) ? await this.connectors.findOneBy({ id, orgId }) : null;
    if (!c) throw new NotFoundError('connector', id);
    return c;
  }

  private actionsOf(connectorId: string): Promise<ConnectorAction[]> {
    return this.actions.find({ where: { connectorId }, order: { position: 'ASC' } });
  }

  /** An internal base_url is refused when saved, not only when dialled (egress.ts). */
  private async checkEgress(baseUrl: string): Promise<void> {
    const problem = await this.egress.savedUrlProblem('base_url', baseUrl);
    if (problem) throw new BadInputError(`invalid connector: ${problem}`, [problem]);
  }

  private async assertNameFree(orgId: string, name: string, exceptId?: string): Promise<void> {
    const clash = (await this.connectors.findBy({ orgId })).find(
      (c) => c.id !== exceptId && toolNameOf(c.name, '') === toolNameOf(name, ''),
    );
    if (clash) throw new ConflictError(`a connector named "${clash.name}" already exists (tool names would collide)`);
  }

  /** Every problem at once, each naming the field or action; nothing is saved when there is one. */
  private validate(dto: ConnectorDto): Array<Omit<ConnectorAction, 'id' | 'connectorId'>> {
    const problems: string[] = [];
    if (!NAME.test(dto.name))
      problems.push(`name "${dto.name}" must start with a letter and contain only letters, digits, "_" or "-" (max 64)`);
    let url: URL | undefined;
    try {
      url = new URL(dto.base_url);
    } catch {
      /* reported below */
    }
    if (!url || !['http:', 'https:'].includes(url.protocol)) problems.push(`base_url "${dto.base_url}" must be an absolute http(s) URL`);
    for (const [key, value] of Object.entries(dto.headers ?? {})) {
      if (!HEADER_NAME.test(key)) problems.push(`headers: "${key}" is not a valid header name`);
      if (typeof value !== 'string') problems.push(`headers: the value of "${key}" must be a string`);
    }
    if (dto.actions.length === 0) problems.push('actions: give at least one action');
    const seen = new Set<string>();
    const actions = dto.actions.map((a: ConnectorActionDto, position) => {
      const where = `action "${a.name}"`;
      if (!NAME.test(a.name))
        problems.push(`${where}: name must start with a letter and contain only letters, digits, "_" or "-" (max 64)`);
      const tool = toolNameOf(dto.name, a.name);
      if (seen.has(tool)) problems.push(`${where}: duplicate action (tool ${tool})`);
      seen.add(tool);
      const method = a.method.toUpperCase() as HttpMethod;
      if (!HTTP_METHODS.includes(method)) problems.push(`${where}: method "${a.method}" must be one of ${HTTP_METHODS.join(', ')}`);
      const parameters = a.parameters ?? { type: 'object', properties: {} };
      problems.push(...this.schemaProblems(where, parameters));
      if (!a.path.startsWith('/') || /\s/.test(a.path))
        problems.push(`${where}: path "${a.path}" must start with "/" and contain no spaces`);
      const declared = (parameters.properties ?? {}) as Record<string, unknown>;
      for (const [, param] of a.path.matchAll(PATH_PARAM)) {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(param)) problems.push(`${where}: path parameter "{${param}}" is not a valid name`);
        else if (a.parameters && !(param in declared))
          problems.push(`${where}: path parameter "${param}" is not declared in parameters.properties`);
      }
      if (a.requires_confirmation_when !== undefined) {
        const problem =
          a.requires_confirmation_when.trim() === '' ? 'must not be empty' : checkConfirmationCondition(a.requires_confirmation_when);
        if (problem)
          problems.push(`${where}: requires_confirmation_when "${a.requires_confirmation_when}" is not a valid CEL condition: ${problem}`);
      }
      return {
        position,
        name: a.name,
        method,
        path: a.path,
        description: a.description ?? '',
        parameters,
        requiresConfirmation: a.requires_confirmation ?? false,
        requiresConfirmationWhen: a.requires_confirmation_when ?? null,
        write: a.write ?? method !== 'GET',
      };
    });
    if (problems.length > 0) throw new BadInputError(`invalid connector: ${problems.join('; ')}`, problems);
    return actions;
  }

  /** A tool's parameters must be a JSON-schema object the LLM APIs accept. */
  private schemaProblems(where: string, schema: Record<string, unknown>): string[] {
    const problems: string[] = [];
    if (schema.type !== 'object') problems.push(`${where}: parameters.type must be "object"`);
    const props = schema.properties;
    if (props !== undefined && (typeof props !== 'object' || props === null || Array.isArray(props))) {
      problems.push(`${where}: parameters.properties must be an object`);
    } else {
      for (const [key, prop] of Object.entries((props ?? {}) as Record<string, unknown>)) {
        if (typeof prop !== 'object' || prop === null || Array.isArray(prop))
          problems.push(`${where}: parameters.properties.${key} must be a schema object`);
      }
    }
    const required = schema.required;
    if (required !== undefined) {
      if (!Array.isArray(required) || required.some((r) => typeof r !== 'string'))
        problems.push(`${where}: parameters.required must be an array of property names`);
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- `in` needs an object type (TS2638)
      else
        for (const r of required as string[])
          if (props && !(r in (props as object))) problems.push(`${where}: parameters.required names "${r}", which is not in properties`);
    }
    return problems;
  }

  private view(c: Connector, actions: ConnectorAction[]): ConnectorView {
    return {
      id: c.id,
      name: c.name,
      base_url: c.baseUrl,
      header_keys: Object.keys(c.headers ?? {}),
      tools: actions.map((a) => toolNameOf(c.name, a.name)),
      actions: actions.map((a) => ({
        name: a.name,
        tool: toolNameOf(c.name, a.name),
        method: a.method,
        path: a.path,
        description: a.description,
        parameters: a.parameters,
        requires_confirmation: a.requiresConfirmation,
        requires_confirmation_when: a.requiresConfirmationWhen,
        write: a.write,
      })),
      created_at: c.createdAt,
      updated_at: c.updatedAt,
    };
  }
}

/** A connector as its configuration audit records it: no header values, no timestamps. */
function audited({ created_at: _c, updated_at: _u, ...v }: ConnectorView): Record<string, unknown> {
  return v;
}
