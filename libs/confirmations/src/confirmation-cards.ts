import { Injectable, Logger } from '@nestjs/common';

import { UsersService } from '@warden/auth';
import { ChannelsService, type DecidedCard, type SentCard } from '@warden/channels';
import { AppConfig, OnBus } from '@warden/common';
import { approvalCardOf } from './approval-card.js';
import { BatchCards } from './batch/batch-cards.js';
import { ConfirmationStore } from './confirmation.store.js';
import { LOST_TURN_APPROVALS_EXPIRED } from './run-port/run-port.js';
import { CONFIRMATION_SETTLED, ConfirmationStatus, type ConfirmationRequest } from './confirmation.types.js';

export function toDecidedCard(row: ConfirmationRequest): DecidedCard {
  return {
    confirmationId: row.id,
    tool: row.tool,
    args: row.args,
    status: row.status as DecidedCard['status'],
    decidedBy: row.respondedByName ?? 'unknown',
    decidedAt: row.respondedAt ?? row.updatedAt,
    reason: row.reason,
  };
}

/**
 * Keeps the cards sent to chat apps in step with their requests: the decided version once settled (in this process,
 * or by a run's cancel), the approval count after a partial approval. Best effort: a card that cannot be updated is
 * logged, the decision stands.
 */
@Injectable()
export class ConfirmationCards {
  private readonly logger = new Logger(ConfirmationCards.name);

  constructor(
    private readonly store: ConfirmationStore,
    private readonly users: UsersService,
    private readonly channels: ChannelsService,
    private readonly config: AppConfig,
    private readonly batches: BatchCards,
  ) {}

  /** After any settlement in this process: replace the platform card with its decided version (best effort). */
  @OnBus(CONFIRMATION_SETTLED, { async: true })
  async markCardDecided(row: ConfirmationRequest): Promise<void> {
    if (row.escalationChannelId && row.escalationCard)
      void this.markEscalationCardDecided(row, row.escalationChannelId, row.escalationCard);
    if (row.batchKey && (await this.batches.sharesCard(row))) return this.batches.refresh(row.batchKey, row.orgId);
    if (!row.channelId || !row.sentCard) return;
    try {
      const { record, impl } = await this.channels.resolveForDelivery(row.orgId, row.channelId);
      if (record.id !== row.channelId) return;
      await impl.markDecided(record, row.sentCard, toDecidedCard(row));
    } catch (err) {
      this.logger.warn(`could not mark the card of confirmation ${row.id} as ${row.status}: ${(err as Error).message}`);
    }
  }

  /** Whether the row's card is its turn's shared card (BatchCards.sharesCard). */
  sharesCard(row: ConfirmationRequest): Promise<boolean> {
    return this.batches.sharesCard(row);
  }

  /** After a partial approval: the card shows the count ("1 of 2 given"), best effort. */
  async refreshPendingCard(row: ConfirmationRequest): Promise<void> {
    if (row.batchKey && (await this.batches.sharesCard(row))) return this.batches.refresh(row.batchKey, row.orgId);
    if (!row.channelId || !row.sentCard) return;
    try {
      const { record, impl } = await this.channels.resolveForDelivery(row.orgId, row.channelId);
      await impl.updatePendingCard(record, row.sentCard, await approvalCardOf(row, this.users, this.config.publicUrl));
    } catch (err) {
      this.logger.warn(`could not update the card of confirmation ${row.id}: ${(err as Error).message}`);
    }
  }

  /**
   * The run engine expires a cancelled run's pending requests in the cancel's own transaction (on whichever instance
   * took the cancel); their cards are updated from here. 'run.cancelled' is RUN_CANCELLED of @warden/agents.
   */
  @OnBus('run.cancelled', { async: true })
  async onRunCancelled(event: { runId: string }): Promise<void> {
    try {
      for (const row of await this.store.findByRun(event.runId)) {
        if (row.status === ConfirmationStatus.Expired && row.reason === 'the run was cancelled')
          await this.markCardDecided(row);
      }
    } catch (err) {
      this.logger.warn(`could not update the cards of cancelled run ${event.runId}: ${(err as Error).message}`);
    }
  }

  /** Requests of a model turn lost with its server, expired by the engine that redid the turn (run-port.ts). */
  @OnBus(LOST_TURN_APPROVALS_EXPIRED, { async: true })
  async onLostTurnExpired(event: { confirmationIds: string[] }): Promise<void> {
    for (const id of event.confirmationIds) {
      const row = await this.store.findById(id).catch(() => null);
      if (row?.status === ConfirmationStatus.Expired) await this.markCardDecided(row);
    }
  }

  private async markEscalationCardDecided(row: ConfirmationRequest, channelId: string, card: SentCard): Promise<void> {
    try {
      const { record, impl } = await this.channels.resolveForDelivery(row.orgId, channelId);
      if (record.id === channelId) await impl.markDecided(record, card, toDecidedCard(row));
    } catch (err) {
      this.logger.warn(
        `could not mark the escalation card of confirmation ${row.id} as ${row.status}: ${(err as Error).message}`,
      );
    }
  }
}
