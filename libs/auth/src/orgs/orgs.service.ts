import { Inject, Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectRepository } from '@nestjs/typeorm';
import { AuditTrail, NotFoundError, type Bus } from '@warden/common';
import { ConfigCache } from '@warden/database';
import { Repository, type EntityManager } from 'typeorm';
import { Org } from './org.entity.js';

export const ORG_READ_ONLY_CHANGED = 'org.read_only_changed';

declare module '@warden/common' {
  interface BusEvents {
    [ORG_READ_ONLY_CHANGED]: { orgId: string; readOnly: boolean };
  }
}

@Injectable()
export class OrgsService {
  constructor(
    @InjectRepository(Org) private readonly orgs: Repository<Org>,
    @Inject(EventEmitter2) private readonly events: Bus,
    private readonly audit: AuditTrail,
    private readonly cache: ConfigCache,
  ) {}

  async get(orgId: string): Promise<Org> {
    const org = await this.orgs.findOneBy({ id: orgId });
    if (!org) throw new NotFoundError('org', orgId);
    return org;
  }

  /** The org as runs see it (consulted on every write tool call): cached until the org changes. */
  cached(orgId: string): Promise<Org> {
    return this.cache.get(orgId, 'org', () => this.get(orgId));
  }

  async isReadOnly(orgId: string): Promise<boolean> {
    return (await this.cached(orgId)).readOnly;
  }

  async setReadOnly(orgId: string, readOnly: boolean, actor: string | null = null): Promise<Org> {
    const before = await this.get(orgId);
    await this.orgs.manager.transaction(async (m) => {
      await m.update(Org, { id: orgId }, { readOnly });
      await this.audit.configChange(
        {
          orgId,
          actor,
          entityType: 'org',
          entityId: orgId,
          change: 'updated',
          before: { read_only: before.readOnly },
          after: { read_only: readOnly },
        },
        m,
      );
    });
    this.cache.invalidate(orgId);
    this.events.emit(ORG_READ_ONLY_CHANGED, { orgId, readOnly });
    return this.get(orgId);
  }

  /** Inside the caller's transaction when given (`tx`: a channel change and its audit event). */
  async setDefaultChannel(orgId: string, channelId: string | null, tx?: EntityManager): Promise<void> {
    await (tx ?? this.orgs.manager).update(Org, { id: orgId }, { defaultChannelId: channelId });
    this.cache.invalidate(orgId);
  }

  async findByExternalId(externalId: string): Promise<Org | null> {
    return this.orgs.findOneBy({ externalId });
  }
}
