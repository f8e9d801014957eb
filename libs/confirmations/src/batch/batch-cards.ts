import { Injectable, Logger } from '@nestjs/common';
import { UsersService } from '@warden/auth';
import { ChannelsService, type BatchCard, type Channel, type ChannelRecord, type SentCard } from '@warden/channels';
import { AppConfig } from '@warden/common';
import { approvalCardOf, whyAsked } from '../approval-card.js';
import { ConfirmationStatus, type ConfirmationRequest } from '../confirmation.types.js';
import { BatchStore } from './batch.store.js';

interface Target {
  record: ChannelRecord;
  impl: Channel;
}
const stateOf = (rows: ConfirmationRequest[]): string => rows.map((r) => `${r.id}:${r.status}`).join(',');

/** The key shared by the gated calls of one model turn (only turns with several calls are batched). */
export function batchKeyOf(
  runId: string,
  turnCallIds: string[] | undefined,
  callId: string,
): { key: string; position: number } | null {
  if (!turnCallIds || turnCallIds.length < 2 || !turnCallIds.includes(callId)) return null;
  return { key: `${runId}:${turnCallIds[0]}`, position: turnCallIds.indexOf(callId) };
}

/**
 * One card per turn: the first gated call of a turn to get here sends the card, the others join it, and the card is
 * re-rendered from the rows (the source of truth) whenever a call joins or is decided, until it shows every outcome.
 * A batch of one renders exactly like a single approval card. Renders of one batch are serialised in this process, each
 * from a fresh read, so the last one shows the latest state.
 */
@Injectable()
export class BatchCards {
  private readonly logger = new Logger(BatchCards.name);
  private readonly renders = new Map<string, Promise<void>>();

  constructor(
    private readonly store: BatchStore,
    private readonly channels: ChannelsService,
    private readonly users: UsersService,
    private readonly config: AppConfig,
  ) {}

  /**
   * Whether a row's card is its turn's shared card: only on channels with batch cards. Elsewhere (the inbox,
   * chat channels without batch cards) the calls of a turn share a batch key (the inbox groups them) but each
   * has its own card.
   */
  async sharesCard(row: ConfirmationRequest): Promise<boolean> {
    if (!row.batchKey || !row.channelId) return false;
    const target = await this.channels.resolveForDelivery(row.orgId, row.channelId).catch(() => null);
    return typeof target?.impl.sendBatchCard === 'function';
  }

  /** Sends (or joins) the card of a batched row; throws when the card could not be sent. */
  async deliver(row: ConfirmationRequest, target: Target): Promise<void> {
    const key = row.batchKey;
    if (!key) throw new Error(`confirmation ${row.id} is not part of a batch`);
    if (await this.store.claim(key, row.orgId, target.record.id)) {
      const rows = await this.store.rows(key);
      const sent = await (rows.length === 1
        ? target.impl.sendApprovalCard(target.record, await this.cardOf(rows[0]))
        : this.sendBatch(target, await this.batchCardOf(key, rows)));
      await this.store.recordCard(key, sent);
      // Calls that joined while the card was on its way read no card yet: this render includes them.
      const after = await this.store.rows(key);
      if (stateOf(after) !== stateOf(rows)) await this.refresh(key, row.orgId);
      return;
    }
    if (await this.store.adoptCard(key, row.id)) await this.refresh(key, row.orgId);
  }

  /** Closes every still-pending request of a batch whose card could not be sent. */
  async expireBatch(batchKey: string, expire: (id: string) => Promise<unknown>): Promise<void> {
    for (const r of await this.store.rows(batchKey)) if (r.status === ConfirmationStatus.Pending) await expire(r.id);
  }

  /** Re-renders the batch's card from its rows (a call joined, or was decided). Best effort. */
  refresh(batchKey: string, orgId: string): Promise<void> {
    const previous = this.renders.get(batchKey) ?? Promise.resolve();
    const next = previous
      .then(() => this.render(batchKey, orgId))
      .catch((err: unknown) => {
        this.logger.warn(`could not update the card of batch ${batchKey}: ${(err as Error).message}`);
      });
    this.renders.set(batchKey, next);
    void next.then(() => {
      if (this.renders.get(batchKey) === next) this.renders.delete(batchKey);
    });
    return next;
  }

  private async render(batchKey: string, orgId: string): Promise<void> {
    const rows = await this.store.rows(batchKey);
    const sent = rows.find((r) => r.sentCard)?.sentCard as SentCard | undefined;
    if (!rows.length || !sent || !rows[0].channelId) return;
    const { record, impl } = await this.channels.resolveForDelivery(orgId, rows[0].channelId);
    if (rows.length > 1) {
      if (!impl.updateBatchCard) throw new Error(`a ${impl.type} channel cannot update batch cards`);
      return impl.updateBatchCard(record, sent, await this.batchCardOf(batchKey, rows));
    }
    const only = rows[0];
    if (only.status === ConfirmationStatus.Pending)
      return impl.updatePendingCard(record, sent, await this.cardOf(only));
    return impl.markDecided(record, sent, {
      confirmationId: only.id,
      tool: only.tool,
      args: only.args,
      status: only.status,
      decidedBy: only.respondedByName ?? 'unknown',
      decidedAt: only.respondedAt ?? only.updatedAt,
      reason: only.reason,
    });
  }

  /** Batches go only to channels with batch cards (approval-card-delivery checks); any other refuses the send. */
  private sendBatch(target: Target, card: BatchCard): Promise<SentCard> {
    if (!target.impl.sendBatchCard)
      return Promise.reject(new Error(`a ${target.impl.type} channel cannot send batch cards`));
    return target.impl.sendBatchCard(target.record, card);
  }

  private cardOf(row: ConfirmationRequest) {
    return approvalCardOf(row, this.users, this.config.publicUrl);
  }

  private async batchCardOf(batchKey: string, rows: ConfirmationRequest[]): Promise<BatchCard> {
    const first = await this.cardOf(rows[0]);
    return {
      batchKey,
      agentName: first.agentName,
      requestedBy: first.requestedBy,
      expiresAt: first.expiresAt,
      link: `${this.config.publicUrl}/approvals`,
      items: rows.map((r) => ({
        confirmationId: r.id,
        tool: r.tool,
        args: r.args,
        decisiveFields: r.decisiveFields ?? [],
        askReason: whyAsked(r),
        status: r.status,
        decidedBy: r.respondedByName,
        reason: r.reason,
      })),
    };
  }
}
