import { Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { UsersService } from '@warden/auth';
import { ChannelsService } from '@warden/channels';
import { AuditTrail, ConflictError, NotFoundError } from '@warden/common';
import { DataSource } from 'typeorm';
import { reassignedEvent } from '../confirmation-audit.js';
import { ConfirmationService } from '../confirmation.service.js';
import { ConfirmationVotesStore } from '../confirmation-votes.store.js';
import { CONFIRMATION_STEPPED, ConfirmationStatus, reasonOf, type ConfirmationRequest } from '../confirmation.types.js';
import { EscalationStore } from './escalation.store.js';
import { checkReassignment } from './reassignment-policy.js';

/**
 * "Not mine to decide": an approver hands a pending request to a named user of the org, who becomes its only
 * approver. Only someone who may approve it may reassign it (the same policy check as a decision), only to someone the
 * request's approver policy already allows, and never so that fewer distinct people approve (reassignment-policy.ts);
 * the step is a history row and a chained audit event, in one transaction; the request's channel is told.
 */
@Injectable()
export class ConfirmationReassignment {
  private readonly logger = new Logger(ConfirmationReassignment.name);

  constructor(
    private readonly confirmations: ConfirmationService,
    private readonly store: EscalationStore,
    private readonly votes: ConfirmationVotesStore,
    private readonly users: UsersService,
    private readonly channels: ChannelsService,
    private readonly audit: AuditTrail,
    private readonly dataSource: DataSource,
    private readonly bus: EventEmitter2,
  ) {}

  async reassign(input: {
    orgId: string;
    confirmationId: string;
    actorUserId: string;
    toSub: string;
    reason?: string;
  }): Promise<ConfirmationRequest> {
    const row = await this.confirmations.get(input.orgId, input.confirmationId);
    const { member } = await this.confirmations.authorize(row, 'approve', { userId: input.actorUserId });
    if (row.status !== ConfirmationStatus.Pending)
      throw new ConflictError(`confirmation ${row.id} is already ${row.status}`, { status: row.status });
    const target = await this.users.memberBySub(input.orgId, input.toSub).catch(() => null);
    if (!target) throw new NotFoundError('user', input.toSub);
    const guard = checkReassignment({
      row,
      by: member,
      to: target,
      voterIds: (await this.votes.list(row.id)).map((v) => v.user_id),
      channelList: await this.channels.approverList(row.orgId, row.channelId),
    });
    const by = { userId: member.userId, name: member.name ?? member.sub };
    const reason = reasonOf(input.reason);
    const moved = await this.dataSource.transaction(async (m) => {
      const done = await this.store.reassign(row.id, target.sub, by, reason, guard, m);
      const move = {
        byUserId: by.userId,
        byName: by.name,
        from: guard.approvers,
        toSub: target.sub,
        toUserId: target.userId,
        reason,
      };
      if (done) await this.audit.record(reassignedEvent(done, move), m);
      return done;
    });
    if (!moved) {
      const now = await this.confirmations.get(input.orgId, row.id);
      if (now.status === ConfirmationStatus.Pending)
        throw new ConflictError(
          `confirmation ${row.id} changed while it was being reassigned (a vote or an escalation): try again`,
          {
            status: now.status,
          },
        );
      throw new ConflictError(`confirmation ${row.id} is already ${now.status}`, { status: now.status });
    }
    this.bus.emit(CONFIRMATION_STEPPED, moved); // this instance's inbox streams (others learn it from the NOTIFY)
    void this.tellChannel(
      moved,
      `${by.name} reassigned approval request ${moved.id} (${moved.tool}) to ${target.name ?? target.sub}`,
    );
    return moved;
  }

  private async tellChannel(row: ConfirmationRequest, text: string): Promise<void> {
    try {
      const { record, impl } = await this.channels.resolveForDelivery(row.orgId, row.channelId ?? undefined);
      await impl.sendNotification(record, text, { agentId: row.agentId, runId: row.runId });
    } catch (err) {
      this.logger.warn(`could not announce the reassignment of ${row.id}: ${(err as Error).message}`);
    }
  }
}
