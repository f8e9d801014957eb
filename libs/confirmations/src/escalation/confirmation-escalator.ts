import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { UsersService } from '@warden/auth';
import { ChannelsService } from '@warden/channels';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { AppConfig, DueSweeps, type Bus, OnBus } from '@warden/common';
import { approvalCardOf } from '../approval-card.js';
import { ConfirmationWaiter } from '../confirmation-waiter.js';
import {
  CONFIRMATION_REQUESTED,
  CONFIRMATION_STEPPED,
  confirmationNotice,
  type ConfirmationRequest,
} from '../confirmation.types.js';
import { EscalationStore } from './escalation.store.js';

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * Reminders and escalations of pending approval requests. Durable and cheap: the due steps are columns of the rows,
 * claimed — all that are due, across all requests — in one statement (EscalationStore.claimDueSteps) by whichever
 * instance sweeps first; no timer per request, nothing lost in a restart. It sweeps only when a step may be due
 * (DueSweeps, at most once per CONFIRMATION_ESCALATION_POLL_MS): at startup, at the earliest step the last sweep
 * found, and at the first step of a request made here or elsewhere (its NOTIFY names when). With no step to take,
 * it sends nothing. Delivery is best effort: the step and its history row are recorded either way, and the inbox
 * shows the widened approvers.
 */
@Injectable()
export class ConfirmationEscalator implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ConfirmationEscalator.name);
  private readonly sweeps: DueSweeps;
  private running = false;

  constructor(
    private readonly store: EscalationStore,
    private readonly channels: ChannelsService,
    private readonly users: UsersService,
    private readonly config: AppConfig,
    @Inject(EventEmitter2) private readonly bus: Bus,
    waiter: ConfirmationWaiter,
  ) {
    this.sweeps = new DueSweeps({
      sweep: () => this.sweep(),
      minGapMs: config.confirmationEscalationPollMs,
      onError: (err) => this.logger.warn(`reminder/escalation sweep failed (retried shortly): ${err.message}`),
    });
    // A request made on another instance (or this one: its echo costs nothing more): armed for its first step, should
    // its instance die before it. A request without reminder or escalation makes nothing due anywhere.
    waiter.observeNotifications((payload) => {
      const notice = confirmationNotice(payload);
      if (notice.firstStepAt !== undefined) this.sweeps.dueIn(notice.firstStepAt - Date.now());
    });
  }

  onModuleInit(): void {
    this.sweeps.dueIn(0);
  }

  onModuleDestroy(): void {
    this.sweeps.stop();
  }

  @OnBus(CONFIRMATION_REQUESTED)
  onRequested(row: ConfirmationRequest): void {
    for (const at of [row.remindAt, row.escalateAt]) if (at) this.sweeps.dueIn(at.getTime() - Date.now());
  }

  /** One poll: claim every due step, then deliver each. Returns how many steps were taken (tests, bench). */
  async tick(): Promise<number> {
    if (this.running) return 0;
    this.running = true;
    try {
      const steps = await this.store.claimDueSteps();
      for (const { step, row } of steps) {
        this.bus.emit(CONFIRMATION_STEPPED, row); // this instance's inbox streams (others learn it from the NOTIFY)
        await (step === 'reminded' ? this.remind(row) : this.escalate(row));
      }
      return steps.length;
    } catch (err) {
      this.logger.warn(`reminder/escalation poll failed: ${(err as Error).message}`);
      return 0;
    } finally {
      this.running = false;
    }
  }

  /** One sweep: the due steps, then how long until the next one (null: none is pending). */
  private async sweep(): Promise<number | null> {
    await this.tick();
    return this.store.nextStepDueInMs();
  }

  private async remind(row: ConfirmationRequest): Promise<void> {
    try {
      const { record, impl } = await this.channels.resolveForDelivery(row.orgId, row.channelId ?? undefined);
      const waited = Math.max(1, Math.round((Date.now() - row.createdAt.getTime()) / 1000));
      const text = oneLine(
        `Reminder: approval still needed for ${row.tool} (agent ${row.agentName ?? 'agent'}), waiting ${waited} s, ` +
          `expires ${row.expiresAt.toISOString()} — request ${row.id}: ${this.config.publicUrl}/approvals/${row.id}`,
      );
      // The requester's notice (the inbox lists it to them); the approvers see it on the card (inbox stream).
      await impl.sendNotification(record, text, { agentId: row.agentId, runId: row.runId, userId: row.requestedBy });
    } catch (err) {
      this.logger.warn(`reminder for confirmation ${row.id} not delivered: ${(err as Error).message}`);
    }
  }

  private async escalate(row: ConfirmationRequest): Promise<void> {
    try {
      const { record, impl } = await this.channels.resolveForDelivery(
        row.orgId,
        row.escalationChannelId ?? row.channelId ?? undefined,
      );
      const card = { ...(await approvalCardOf(row, this.users, this.config.publicUrl)), escalated: true };
      await this.store.recordEscalationCard(row.id, await impl.sendApprovalCard(record, card));
    } catch (err) {
      this.logger.warn(`escalation card for confirmation ${row.id} not delivered: ${(err as Error).message}`);
    }
  }
}
