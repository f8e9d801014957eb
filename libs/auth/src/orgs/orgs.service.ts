import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectRepository } from '@nestjs/typeorm';
import { AuditTrail, NotFoundError } from '@warden/common';
import { Repository } from 'typeorm';
import { Org } from './org.entity.js';

export const ORG_READ_ONLY_CHANGED = 'org.read_only_changed';
const READ_ONLY_TTL_MS = 2_000;

@Injectable()
export class OrgsService {
  /** Read-only state is consulted on every write tool call; a short cache keeps that off the database. */
  private readonly readOnlyCache = new Map<string, { value: boolean; until: number }>();

  constructor(
    @InjectRepository(Org) private readonly orgs: Repository<Org>,
    private readonly events: EventEmitter2,
    private readonly audit: AuditTrail,
  ) {}

  async get(orgId: string): Promise<Org> {
    const org = await this.orgs.findOneBy({ id: orgId });
    if (!org) throw new NotFoundError('org', orgId);
    return org;
  }

  async isReadOnly(orgId: string): Promise<boolean> {
    const hit = this.readOnlyCache.get(orgId);
    if (hit && hit.until > Date.now()) return hit.value;
    const org = await this.get(orgId);
    this.readOnlyCache.set(orgId, { value: org.readOnly, until: Date.now() + READ_ONLY_TTL_MS });
    return org.readOnly;
  }

  async setReadOnly(orgId: string, readOnly: boolean, actor: string | null = null): Promise<Org> {
    const before = await this.get(orgId);
    await this.orgs.manager.transaction(async (m) => {
      await m.update(Org, { id: orgId }, { readOnly });
      await this.audit.configChange({
        orgId, actor, entityType: 'org', entityId: orgId, change: 'updated', before: { read_only: before.readOnly }, after: { read_only: readOnly },
      }, m);
    });
    this.readOnlyCache.set(orgId, { value: readOnly, until: Date.now() + READ_ONLY_TTL_MS });
    this.events.emit(ORG_READ_ONLY_CHANGED, { orgId, readOnly });
    return this.get(orgId);
  }

  async setDefaultChannel(orgId: string, channelId: string | null): Promise<void> {
    await this.orgs.update({ id: orgId }, { defaultChannelId: channelId });
  }

  async findByExternalId(externalId: string): Promise<Org | null> {
    return this.orgs.findOneBy({ externalId });
  }
}
