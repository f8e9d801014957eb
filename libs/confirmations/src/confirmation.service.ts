import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import {
  ChannelsService,
  type ApprovalDecisionSink,
  type ChannelRecord,
  type ChatPlatform,
  type Decision,
  type DecisionOutcome,
} from '@warden/channels';
import { ConflictError, DomainException } from '@warden/common';
import type { ResolvedDecider } from './approver-check.js';
import { decideAllOnCard } from './batch/decide-all.js';
import { ConfirmationCards, toDecidedCard } from './confirmation-cards.js';
import {
  ConfirmationDecisionService,
  type DecideInput,
  type PlatformActor,
  type UserActor,
} from './confirmation-decision.service.js';
import { ConfirmationStore } from './confirmation.store.js';
import { approvalsProgress, ConfirmationStatus, type ConfirmationRequest } from './confirmation.types.js';

export { toDecidedCard } from './confirmation-cards.js';
export type { DecideInput, PlatformActor, UserActor } from './confirmation-decision.service.js';

/**
 * The confirmations as the rest of the app uses them: read one, decide it (ConfirmationDecisionService), close it
 * without a decision, update its card (ConfirmationCards) — and the channels' ApprovalDecisionSink, which turns a
 * verified chat-app click into a decision and its answer on the platform.
 */
@Injectable()
export class ConfirmationService implements ApprovalDecisionSink, OnModuleInit {
  private readonly logger = new Logger(ConfirmationService.name);

  constructor(
    private readonly decisions: ConfirmationDecisionService,
    private readonly cards: ConfirmationCards,
    private readonly store: ConfirmationStore,
    private readonly channels: ChannelsService,
  ) {}

  onModuleInit(): void {
    this.channels.setDecisionSink(this);
  }

  get(orgId: string, id: string): Promise<ConfirmationRequest> {
    return this.decisions.get(orgId, id);
  }

  decide(input: DecideInput): Promise<ConfirmationRequest> {
    return this.decisions.decide(input);
  }

  authorize(row: ConfirmationRequest, decision: Decision, actor: UserActor | PlatformActor): Promise<ResolvedDecider> {
    return this.decisions.authorize(row, decision, actor);
  }

  expire(id: string, by: string, reason: string): Promise<ConfirmationRequest | null> {
    return this.decisions.expire(id, by, reason);
  }

  markCardDecided(row: ConfirmationRequest): Promise<void> {
    return this.cards.markCardDecided(row);
  }

  async decideFromChannel(input: {
    channel: ChannelRecord;
    confirmationId: string;
    decision: Decision;
    all?: boolean;
    actor: { platform: ChatPlatform; externalId: string };
  }): Promise<DecisionOutcome> {
    const { channel, actor } = input;
    if (input.all) return decideAllOnCard(this, this.store, input);
    try {
      const row = await this.decide({
        orgId: channel.orgId,
        confirmationId: input.confirmationId,
        decision: input.decision,
        actor: { ...actor, channelId: channel.id },
      });
      if (row.status === ConfirmationStatus.Pending)
        return { ok: true, message: `Approval recorded: ${approvalsProgress(row)}` };
      const verb = row.status === ConfirmationStatus.Approved ? 'Approved' : 'Rejected';
      // A turn's card lists other calls too:
      // it is re-rendered from the rows (markCardDecided), not replaced by this one.
      return {
        ok: true,
        message: `${verb} by ${row.respondedByName}`,
        ...(row.batchKey && (await this.cards.sharesCard(row)) ? { settled: true } : { decided: toDecidedCard(row) }),
      };
    } catch (err) {
      if (err instanceof ConflictError) {
        const row = await this.store.findInOrg(channel.orgId, input.confirmationId).catch(() => null);
        const decided = row && row.status !== ConfirmationStatus.Pending ? toDecidedCard(row) : undefined;
        return { ok: false, message: err.message, decided };
      }
      if (err instanceof DomainException) return { ok: false, message: err.message };
      this.logger.error(`decision from ${actor.platform} on channel ${channel.id} failed: ${(err as Error).message}`);
      return { ok: false, message: 'the decision could not be recorded; please try again' };
    }
  }
}
