import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { UsersService } from '@warden/auth';
import { ChannelsService } from '@warden/channels';
import { AppConfig } from '@warden/common';
import { approvalCardOf } from '../approval-card.js';
import type { ConfirmationRequest } from '../confirmation.types.js';
import { EscalationStore } from './escalation.store.js';

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * Reminders and escalations of pending approval requests. Durable and cheap: the due steps are columns of the rows,
 * and one timer per instance (every CONFIRMATION_ESCALATION_POLL_MS, 5 s by default: a reminder is late by at most
 * that) claims all that are due, across all requests, in one
 * statement (EscalationStore.claimDueSteps) — no timer per request, nothing lost in a restart. Delivery is best
 * effort: the step and its history row are recorded either way, and the inbox shows the widened approvers.
 */
@Injectable()
export class ConfirmationEscalator implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ConfirmationEscalator.name);
  private timer?: NodeJS.Timeout;
  private running = false;

  constructor(
    private readonly store: EscalationStore,
    private readonly channels: ChannelsService,
    private readonly users: UsersService,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.tick(), this.config.confirmationEscalationPollMs);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** One poll: claim every due step, then deliver each. Returns how many steps were taken (tests, bench). */
  async tick(): Promise<number> {
    if (this.running) return 0;
    this.running = true;
    try {
      const steps = await this.store.claimDueSteps();
      for (const { step, row } of steps) await (step === 'reminded' ? this.remind(row) : this.escalate(row));
      return steps.length;
    } catch (err) {
      this.logger.warn(`reminder/escalation poll failed: ${(err as Error).message}`);
      return 0;
    } finally {
      this.running = false;
    }
  }

  private async remind(row: ConfirmationRequest): Promise<void> {
    try {
      const { record, impl } = await this.channels.resolveForDelivery(row.orgId, row.channelId ?? undefined);
      const waited = Math.max(1, Math.round((Date.now() - row.createdAt.getTime()) / 1000));
      const text = oneLine(
        `Reminder: approval still needed for ${row.tool} (agent ${row.agentName ?? 'agent'}), waiting ${waited} s, ` +
          `expires ${row.expiresAt.toISOString()} — request ${row.id}: ${this.config.publicUrl}/approvals/${row.id}`,
      );
      await impl.sendNotification(record, text, { agentId: row.agentId, runId: row.runId });
    } catch (err) {
      this.logger.warn(`reminder for confirmation ${row.id} not delivered: ${(err as Error).message}`);
    }
  }

  private async escalate(row: ConfirmationRequest): Promise<void> {
    try {
      const { record, impl } = await this.channels.resolveForDelivery(row.orgId, row.escalationChannelId ?? row.channelId ?? undefined);
      const card = { ...(await approvalCardOf(row, this.users, this.config.publicUrl)), escalated: true };
      await this.store.recordEscalationCard(row.id, await impl.sendApprovalCard(record, card));
    } catch (err) {
      this.logger.warn(`escalation card for confirmation ${row.id} not delivered: ${(err as Error).message}`);
    }
  }
}
