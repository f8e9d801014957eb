import { Injectable, Logger } from '@nestjs/common';
import { UsersService } from '@warden/auth';
import { ChannelsService, type Channel } from '@warden/channels';
import { AppConfig } from '@warden/common';
import { isDroppedDatabaseConnection } from '@warden/database';
import type { HookContext, HookResult } from '@warden/hooks';
import { approvalCardOf } from '../approval-card.js';
import { BatchCards } from '../batch/batch-cards.js';
import { ConfirmationCards } from '../confirmation-cards.js';
import { ConfirmationDecisionService } from '../confirmation-decision.service.js';
import { ConfirmationStore } from '../confirmation.store.js';
import { ConfirmationStatus, type ConfirmationRequest } from '../confirmation.types.js';
import type { DeliveryTarget } from './approval-request-opener.js';
import { block, message } from './gate-verdict.js';

/** The channel refused or failed to send the card (whatever the message says, not our database dropping). */
class CardNotSentError extends Error {
  constructor(cause: unknown) {
    super(message(cause), { cause });
  }
}

/**
 * Sends a request's approval card (alone, or the turn's batch card) and records where it went. A card that cannot
 * be sent closes the request (and the rest of its batch), so nothing can approve it later, and blocks the call; a
 * dropped database connection is thrown instead (no decision: the next attempt resends).
 */
@Injectable()
export class ApprovalCardDelivery {
  private readonly logger = new Logger(ApprovalCardDelivery.name);

  constructor(
    private readonly store: ConfirmationStore,
    private readonly channels: ChannelsService,
    private readonly users: UsersService,
    private readonly config: AppConfig,
    private readonly batches: BatchCards,
    private readonly decisions: ConfirmationDecisionService,
    private readonly cards: ConfirmationCards,
  ) {}

  /** Sends the card; on failure closes the row (so nothing can approve it later) and returns the block. */
  async deliver(
    ctx: HookContext,
    row: ConfirmationRequest,
    resolved?: DeliveryTarget,
  ): Promise<HookResult | undefined> {
    let sent: Awaited<ReturnType<Channel['sendApprovalCard']>>;
    try {
      const channel = resolved ?? (await this.channels.resolveForDelivery(row.orgId, row.channelId ?? undefined));
      if (row.batchKey && channel.impl.sendBatchCard) {
        await this.batches.deliver(row, channel);
        return undefined;
      }
      const card = await approvalCardOf(row, this.users, this.config.publicUrl);
      sent = await channel.impl
        .sendApprovalCard(channel.record, card)
        .catch((err: unknown) => Promise.reject(new CardNotSentError(err)));
    } catch (err) {
      // Our own database dropped (looking up the channel or the card's names): no decision, the next attempt resends.
      if (!(err instanceof CardNotSentError) && isDroppedDatabaseConnection(err)) throw err;
      return this.undelivered(ctx, row, err instanceof CardNotSentError ? err.cause : err);
    }
    const delivered = await this.store.recordDelivery(row.id, sent);
    // Decided before we could store where the card went: update the card now.
    if (delivered && delivered.status !== ConfirmationStatus.Pending) void this.cards.markCardDecided(delivered);
    return undefined;
  }

  private async undelivered(ctx: HookContext, row: ConfirmationRequest, cause: unknown): Promise<HookResult> {
    const reason = `card delivery failed: ${message(cause)}`;
    this.logger.warn(`confirmation ${row.id}: ${reason}`);
    const closed = await this.decisions.expire(row.id, 'system', reason);
    // The turn's other calls wait on the same card: none of them can be approved through it now.
    if (row.batchKey && (await this.batches.sharesCard(row)))
      await this.batches
        .expireBatch(row.batchKey, (id) => this.decisions.expire(id, 'system', reason))
        .catch(() => undefined);
    if (closed) {
      await ctx
        .emit(
          'confirmation_resolved',
          { call_id: ctx.callId, confirmation_id: row.id, status: closed.status, responded_by: 'system' },
          'running',
        )
        .catch(() => undefined);
    }
    return block(`the approval card could not be delivered (${message(cause)}); the call was not approved`);
  }
}
