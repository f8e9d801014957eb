import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { OrgsService } from '@warden/auth';
import { AuditTrail, isUuid, NotFoundError } from '@warden/common';
import { TransactionRunner } from '@warden/database';
import { Repository } from 'typeorm';
import type { ApprovalDecisionSink, Channel, ChannelRecord, ChannelType } from './channel.js';
import { ChannelEntity } from './channel.entity.js';
import { auditedChannel, changedSecrets } from './channel-audit.js';
import { ChannelConfigs, type ChannelView } from './channel-configs.js';
import { ChannelRegistry } from './channel-registry.js';
import { INBOX_CHANNEL_ID } from './inbox/inbox.channel.js';

const inboxRecord = (orgId: string): ChannelRecord => ({
  id: INBOX_CHANNEL_ID,
  orgId,
  type: 'inbox',
  name: 'Inbox',
  config: {},
});

/**
 * The org's channels: managed through the API (config checked and secrets sealed by ChannelConfigs, every change
 * audited) and looked up for delivery and callbacks (callback events are de-duplicated by CallbackEvents).
 */
@Injectable()
export class ChannelsService {
  private sink?: ApprovalDecisionSink;

  constructor(
    @InjectRepository(ChannelEntity) private readonly channels: Repository<ChannelEntity>,
    private readonly registry: ChannelRegistry,
    private readonly configs: ChannelConfigs,
    private readonly orgs: OrgsService,
    private readonly audit: AuditTrail,
    private readonly tx: TransactionRunner,
  ) {}

  /** The confirmations module registers its decision service here; callbacks hand verified clicks to it. */
  setDecisionSink(sink: ApprovalDecisionSink): void {
    this.sink = sink;
  }

  get decisionSink(): ApprovalDecisionSink | undefined {
    return this.sink;
  }

  async create(
    orgId: string,
    input: { type: ChannelType; name: string; config?: Record<string, unknown>; isDefault?: boolean },
    actor: string | null = null,
  ): Promise<ChannelView> {
    const impl = this.registry.get(input.type);
    const config = input.config ?? {};
    this.configs.validate(impl, config);
    await this.configs.checkEgress(impl, config);
    // The channel, the org's default and the audit event commit together.
    return this.tx.run(async ({ manager }) => {
      const row = await manager.save(
        manager.create(ChannelEntity, {
          orgId,
          type: input.type,
          name: input.name,
          ...this.configs.seal(impl, config),
        }),
      );
      if (input.isDefault) await this.orgs.setDefaultChannel(orgId, row.id, manager);
      const view = this.configs.view(row, input.isDefault ? row.id : (await this.orgs.get(orgId)).defaultChannelId);
      await this.audit.configChange(
        {
          orgId,
          actor,
          entityType: 'channel',
          entityId: row.id,
          change: 'created',
          before: null,
          after: auditedChannel(view),
        },
        manager,
      );
      return view;
    });
  }

  async list(orgId: string): Promise<ChannelView[]> {
    const [rows, org] = await Promise.all([
      this.channels.find({ where: { orgId }, order: { createdAt: 'ASC' } }),
      this.orgs.get(orgId),
    ]);
    return rows.map((r) => this.configs.view(r, org.defaultChannelId));
  }

  async get(orgId: string, id: string): Promise<ChannelView> {
    const row = await this.row(orgId, id);
    return this.configs.view(row, (await this.orgs.get(orgId)).defaultChannelId);
  }

  async update(
    orgId: string,
    id: string,
    input: { name?: string; config?: Record<string, unknown>; isDefault?: boolean },
    actor: string | null = null,
  ): Promise<ChannelView> {
    const row = await this.row(orgId, id);
    const before = this.configs.view(row, (await this.orgs.get(orgId)).defaultChannelId);
    const secretsBefore = this.configs.secretsOf(row);
    if (input.config) {
      const impl = this.registry.get(row.type);
      this.configs.requireSecretsOnRebind(impl, row, input.config);
      // Secrets are write-only, so an update names only what changes; null removes a key.
      const merged = Object.fromEntries(
        Object.entries({ ...this.configs.decrypted(row), ...input.config }).filter(([, v]) => v !== null),
      );
      this.configs.validate(impl, merged);
      if ('base_url' in input.config) await this.configs.checkEgress(impl, merged);
      Object.assign(row, this.configs.seal(impl, merged));
    }
    if (input.name !== undefined) row.name = input.name;
    const org = await this.orgs.get(orgId);
    let defaultId = org.defaultChannelId;
    if (input.isDefault === true && defaultId !== row.id) defaultId = row.id;
    if (input.isDefault === false && defaultId === row.id) defaultId = null;
    // The channel, the org's default and the audit event commit together.
    return this.tx.run(async ({ manager }) => {
      await manager.save(row);
      const after = this.configs.view(row, defaultId);
      if (defaultId !== org.defaultChannelId) await this.orgs.setDefaultChannel(orgId, defaultId, manager);
      await this.audit.configChange(
        {
          orgId,
          actor,
          entityType: 'channel',
          entityId: id,
          change: 'updated',
          before: auditedChannel(before),
          after: auditedChannel(after),
          secretsChanged: changedSecrets(secretsBefore, this.configs.secretsOf(row)),
        },
        manager,
      );
      return after;
    });
  }

  async remove(orgId: string, id: string, actor: string | null = null): Promise<void> {
    const row = await this.row(orgId, id);
    const org = await this.orgs.get(orgId);
    await this.tx.run(async ({ manager }) => {
      if (org.defaultChannelId === row.id) await this.orgs.setDefaultChannel(orgId, null, manager);
      await manager.delete(ChannelEntity, { id: row.id, orgId });
      await this.audit.configChange(
        {
          orgId,
          actor,
          entityType: 'channel',
          entityId: id,
          change: 'deleted',
          before: auditedChannel(this.configs.view(row, org.defaultChannelId)),
          after: null,
        },
        manager,
      );
    });
  }

  /** The channel with its secrets decrypted, for the implementations. `inbox` is the built-in inbox. */
  async getRecord(orgId: string, id: string): Promise<ChannelRecord> {
    if (id === INBOX_CHANNEL_ID) return inboxRecord(orgId);
    return this.configs.toRecord(await this.row(orgId, id));
  }

  /** A callback names only the channel id; the platform's signature (checked by the channel) proves the rest. */
  async recordForCallback(id: string): Promise<ChannelRecord> {
    const row = isUuid(id) ? await this.channels.findOneBy({ id }) : null;
    if (!row) throw new NotFoundError('channel', id);
    return this.configs.toRecord(row);
  }

  /** The given channel (must be the org's), else the org's default channel, else the built-in inbox. */
  async resolveForDelivery(orgId: string, channelId?: string): Promise<{ record: ChannelRecord; impl: Channel }> {
    let record: ChannelRecord;
    if (channelId) {
      record = await this.getRecord(orgId, channelId);
    } else {
      const defaultId = (await this.orgs.get(orgId)).defaultChannelId;
      const row = defaultId ? await this.channels.findOneBy({ id: defaultId, orgId }) : null;
      record = row ? this.configs.toRecord(row) : inboxRecord(orgId);
    }
    return { record, impl: this.registry.get(record.type) };
  }

  /**
   * The channel's own approver list (`approver_open_ids` / `approver_user_ids`) as it is now, with its platform; no
   * list when the channel is gone or lists nobody. Read at decision time, so removing an id takes effect at once.
   */
  async approverList(orgId: string, channelId: string | null): Promise<{ type?: ChannelType; ids?: string[] }> {
    if (!channelId) return {};
    const record = await this.getRecord(orgId, channelId).catch(() => null);
    if (!record) return {};
    return { type: record.type, ids: this.registry.get(record.type).approverAllowList(record) };
  }

  /**
   * Sends a test approval card — the real rendering, buttons included — and says whether the platform took it. Its
   * confirmation id belongs to no request, so a click on it answers "not found" and decides nothing. The inbox has no
   * card to send; it gets a test notification instead.
   */
  async sendTest(
    orgId: string,
    id: string,
    requester: { userId: string; name?: string | null },
  ): Promise<{ ok: boolean; message_id?: string; error?: string }> {
    const record = await this.getRecord(orgId, id);
    const impl = this.registry.get(record.type);
    try {
      const sent =
        record.type === 'inbox'
          ? await impl.sendNotification(
              record,
              `**Warden test message** — channel "${record.name}" can deliver messages.`,
            )
          : await impl.sendApprovalCard(record, {
              confirmationId: randomUUID(),
              agentName: 'Warden channel test',
              tool: 'example__test_card',
              args: { note: 'This is a test card from Warden; its buttons decide nothing.' },
              requestedBy: requester,
              expiresAt: new Date(Date.now() + 10 * 60_000),
              approverScope: 'org_admins',
            });
      return { ok: true, message_id: sent.platformMessageId };
    } catch (err) {
      return { ok: false, error: (err as Error).message };
    }
  }

  private async row(orgId: string, id: string): Promise<ChannelEntity> {
    const row = isUuid(id) ? await this.channels.findOneBy({ id, orgId }) : null;
    if (!row) throw new NotFoundError('channel', id);
    return row;
  }
}
