import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import {
  AuditTrail,
  BadInputError,
  changedSecrets,
  EgressPolicy,
  isUuid,
  NotFoundError,
  secretsFollowProblem,
} from '@warden/common';
import { ConfigCache, TransactionRunner } from '@warden/database';
import { Repository, type EntityManager } from 'typeorm';
import { validateConnector } from './connector-validation.js';
import { auditedConnector, connectorView, type ConnectorView } from './connector-view.js';
import { Connector, ConnectorAction } from './connector.entity.js';
import type { ConnectorDto } from './dto/connector.dto.js';
import { ToolNamespaces } from '../tools/tool-namespaces.js';
import { toolNameOf } from './tool-name.js';

export type { ConnectorView } from './connector-view.js';

/** A connector action as the runtime sees it: a named tool plus what is needed to call it. */
export interface ConnectorTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  connector: Connector;
  action: ConnectorAction;
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
    private readonly namespaces: ToolNamespaces,
  ) {}

  async list(orgId: string): Promise<ConnectorView[]> {
    const rows = await this.connectors.find({ where: { orgId }, order: { name: 'ASC' } });
    return Promise.all(rows.map(async (c) => connectorView(c, await this.actionsOf(c.id))));
  }

  async get(orgId: string, id: string): Promise<ConnectorView> {
    const c = await this.find(orgId, id);
    return connectorView(c, await this.actionsOf(c.id));
  }

  async create(orgId: string, dto: ConnectorDto, actor: string | null = null): Promise<ConnectorView> {
    const actions = validateConnector(dto);
    await this.checkEgress(dto.base_url);
    await this.namespaces.assertFree(orgId, dto.name);
    const id = await this.inTransaction(orgId, dto.name, undefined, async (manager) => {
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
      // The change and its audit event commit together.
      const after = auditedConnector(await viewIn(manager, c.id));
      await this.audit.configChange(
        { orgId, actor, entityType: 'connector', entityId: c.id, change: 'created', before: null, after },
        manager,
      );
      return c.id;
    });
    this.cache.invalidate(orgId);
    const after = await this.get(orgId, id);
    return after;
  }

  /** Replaces the connector; headers left out keep their stored values (clients never see them to send back). */
  async update(orgId: string, id: string, dto: ConnectorDto, actor: string | null): Promise<ConnectorView> {
    const existing = await this.find(orgId, id);
    const before = await this.get(orgId, id);
    const actions = validateConnector(dto);
    // Header values belong to the host they were entered for (as channels' secrets do): another origin needs them
    // again.
    const kept = dto.headers === undefined ? Object.keys(existing.headers).map((k) => `headers.${k}`) : [];
    const rebind = secretsFollowProblem({ field: 'base_url', before: existing.baseUrl, after: dto.base_url, kept });
    if (rebind) throw new BadInputError(`invalid connector: ${rebind}`, [rebind]);
    await this.checkEgress(dto.base_url);
    await this.namespaces.assertFree(orgId, dto.name, id);
    await this.inTransaction(orgId, dto.name, id, async (manager) => {
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
      // Header values are secrets: the audit says which changed, never what they are.
      const headers = dto.headers ?? existing.headers;
      await this.audit.configChange(
        {
          orgId,
          actor,
          entityType: 'connector',
          entityId: id,
          change: 'updated',
          before: auditedConnector(before),
          after: auditedConnector(await viewIn(manager, id)),
          secretsChanged: changedSecrets(existing.headers, headers).map((k) => `headers.${k}`),
        },
        manager,
      );
    });
    this.cache.invalidate(orgId);
    const after = await this.get(orgId, id);
    return after;
  }

  async remove(orgId: string, id: string, actor: string | null): Promise<void> {
    const before = await this.get(orgId, id);
    await this.tx.run(async ({ manager }) => {
      await manager.delete(Connector, { id, orgId });
      await this.audit.configChange(
        {
          orgId,
          actor,
          entityType: 'connector',
          entityId: id,
          change: 'deleted',
          before: auditedConnector(before),
          after: null,
        },
        manager,
      );
    });
    this.cache.invalidate(orgId);
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
      // One Connector object per connector, shared by its tools.
      let connector = byId.get(owner.id);
      if (!connector) byId.set(owner.id, (connector = owner));
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

  /** A save under `name`: two admins racing for one tool namespace get the same 409 as `assertFree` gives. */
  private async inTransaction<T>(
    orgId: string,
    name: string,
    id: string | undefined,
    work: (m: EntityManager) => Promise<T>,
  ): Promise<T> {
    try {
      return await this.tx.run(({ manager }) => work(manager));
    } catch (err) {
      throw await this.namespaces.refusal(err, orgId, name, id);
    }
  }
}

/** The connector as written inside `m`'s transaction (what its audit event records). */
async function viewIn(m: EntityManager, id: string): Promise<ConnectorView> {
  const c = await m.findOneByOrFail(Connector, { id });
  return connectorView(c, await m.find(ConnectorAction, { where: { connectorId: id }, order: { position: 'ASC' } }));
}
