import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { UsersService, type MemberView } from '@warden/auth';
import {
  ChannelsService,
  type ApprovalDecisionSink,
  type ChannelRecord,
  type ChatPlatform,
  type Decision,
  type DecidedCard,
  type DecisionOutcome,
} from '@warden/channels';
import { ConflictError, DomainException, ForbiddenError, NotFoundError } from '@warden/common';
import { ConfirmationStore } from './confirmation.store.js';
import { CONFIRMATION_SETTLED, ConfirmationStatus, type ConfirmationRequest } from './confirmation.types.js';

/** A signed-in user deciding through the API (the inbox). */
export interface UserActor {
  userId: string;
}

/** A verified click in a chat app, on the channel the card was sent to. */
export interface PlatformActor {
  platform: ChatPlatform;
  externalId: string;
  channelId: string;
  /** The channel's `approver_open_ids` / `approver_user_ids`, when it lists them (`["*"]` = anyone in the chat). */
  channelApprovers?: string[];
}

export interface DecideInput {
  orgId: string;
  confirmationId: string;
  decision: Decision;
  reason?: string;
  actor: UserActor | PlatformActor;
}

const SCOPE_WORDS: Record<string, string> = {
  initiator: 'the user who started the run',
  agent_owner: "the agent's owner",
  org_members: 'members of the organisation',
  org_admins: 'organisation admins',
};

interface Decider {
  userId: string | null;
  name: string;
  openId?: string;
  platform?: ChatPlatform;
}

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
 * The one place where confirmations are decided: the inbox API, chat-app clicks (as the channels'
 * ApprovalDecisionSink), expiry and failed deliveries all end in `ConfirmationStore.settle`, whose
 * `WHERE status = 'pending'` lets exactly one decision win. A refusal (scope, self-approval, wrong channel)
 * is checked before that statement and changes nothing.
 */
@Injectable()
export class ConfirmationService implements ApprovalDecisionSink, OnModuleInit {
  private readonly logger = new Logger(ConfirmationService.name);

  constructor(
    private readonly store: ConfirmationStore,
    private readonly users: UsersService,
    private readonly channels: ChannelsService,
  ) {}

  onModuleInit(): void {
    this.channels.setDecisionSink(this);
  }

  list(orgId: string, filter: { status?: ConfirmationStatus; limit?: number } = {}): Promise<ConfirmationRequest[]> {
    return this.store.list(orgId, { status: filter.status, limit: filter.limit ?? 100 });
  }

  async get(orgId: string, id: string): Promise<ConfirmationRequest> {
    const row = await this.store.findInOrg(orgId, id);
    if (!row) throw new NotFoundError('confirmation', id);
    return row;
  }

  async decide(input: DecideInput): Promise<ConfirmationRequest> {
    const row = await this.get(input.orgId, input.confirmationId);
    // A click on a card of channel A must not decide a request that was sent to channel B.
    if ('platform' in input.actor && row.channelId !== input.actor.channelId) throw new NotFoundError('confirmation', input.confirmationId);
    const decider = await this.authorize(row, input.decision, input.actor);
    if (row.status !== ConfirmationStatus.Pending) throw this.alreadyDecided(row);
    const settled = await this.store.settle(row.id, {
      status: input.decision === 'approve' ? ConfirmationStatus.Approved : ConfirmationStatus.Rejected,
      respondedByUserId: decider.userId,
      respondedByOpenId: decider.openId ?? null,
      respondedByPlatform: decider.platform ?? null,
      respondedByName: decider.name,
      reason: input.reason?.trim() || null,
    });
    if (settled) return settled;
    // Lost the race, or the deadline passed while nobody was waiting (e.g. the process was down): say which.
    const now = (await this.store.findById(row.id)) ?? row;
    if (now.status === ConfirmationStatus.Pending) {
      const closed = (await this.expire(row.id, 'timeout', 'no decision before the deadline')) ?? (await this.store.findById(row.id)) ?? now;
      throw this.alreadyDecided(closed);
    }
    throw this.alreadyDecided(now);
  }

  /**
   * Closes a request without a human decision (deadline, cancelled run, undeliverable card). Returns the row if
   * this call expired it, null if it was no longer pending.
   */
  expire(id: string, by: string, reason: string): Promise<ConfirmationRequest | null> {
    return this.store.settle(id, { status: ConfirmationStatus.Expired, respondedByName: by, reason });
  }

  async decideFromChannel(input: {
    channel: ChannelRecord;
    confirmationId: string;
    decision: Decision;
    actor: { platform: ChatPlatform; externalId: string };
    approvers?: string[];
  }): Promise<DecisionOutcome> {
    const { channel, actor } = input;
    const channelApprovers = input.approvers;
    try {
      const row = await this.decide({
        orgId: channel.orgId,
        confirmationId: input.confirmationId,
        decision: input.decision,
        actor: { ...actor, channelId: channel.id, channelApprovers },
      });
      const verb = row.status === ConfirmationStatus.Approved ? 'Approved' : 'Rejected';
      return { ok: true, message: `${verb} by ${row.respondedByName}`, decided: toDecidedCard(row) };
    } catch (err) {
      if (err instanceof ConflictError) {
        const row = await this.store.findInOrg(channel.orgId, input.confirmationId).catch(() => null);
        return { ok: false, message: err.message, decided: row ? toDecidedCard(row) : undefined };
      }
      if (err instanceof DomainException) return { ok: false, message: err.message };
      this.logger.error(`decision from ${actor.platform} on channel ${channel.id} failed: ${(err as Error).message}`);
      return { ok: false, message: 'the decision could not be recorded; please try again' };
    }
  }

  /** After any settlement in this process: replace the platform card with its decided version (best effort). */
  @OnEvent(CONFIRMATION_SETTLED, { async: true })
  async markCardDecided(row: ConfirmationRequest): Promise<void> {
    if (!row.channelId || !row.sentCard) return;
    try {
      const { record, impl } = await this.channels.resolveForDelivery(row.orgId, row.channelId);
      if (record.id !== row.channelId) return;
      await impl.markDecided(record, row.sentCard, toDecidedCard(row));
    } catch (err) {
      this.logger.warn(`could not mark the card of confirmation ${row.id} as ${row.status}: ${(err as Error).message}`);
    }
  }

  /**
   * The run engine expires a cancelled run's pending requests in the cancel's own transaction (on whichever instance
   * took the cancel); their cards are updated from here. 'run.cancelled' is RUN_CANCELLED of @warden/agents.
   */
  @OnEvent('run.cancelled', { async: true })
  async onRunCancelled(event: { runId: string }): Promise<void> {
    try {
      for (const row of await this.store.findByRun(event.runId)) {
        if (row.status === ConfirmationStatus.Expired && row.reason === 'the run was cancelled') await this.markCardDecided(row);
      }
    } catch (err) {
      this.logger.warn(`could not update the cards of cancelled run ${event.runId}: ${(err as Error).message}`);
    }
  }

  private alreadyDecided(row: ConfirmationRequest): ConflictError {
    return new ConflictError(`confirmation ${row.id} is already ${row.status}`, { status: row.status });
  }

  private async authorize(row: ConfirmationRequest, decision: Decision, actor: UserActor | PlatformActor): Promise<Decider> {
    if ('userId' in actor) {
      const member = await this.users.memberById(row.orgId, actor.userId);
      if (!member) throw new ForbiddenError('you are not a member of the organisation that owns this request');
      this.checkScope(row, member, decision);
      return { userId: member.userId, name: member.name ?? member.sub };
    }
    const member = await this.users.memberByIdentity(row.orgId, actor.platform, actor.externalId);
    const who = `${actor.platform} user ${actor.externalId}`;
    if (actor.channelApprovers) {
      if (!actor.channelApprovers.includes('*') && !actor.channelApprovers.includes(actor.externalId)) {
        throw new ForbiddenError(`${who} is not in this channel's approver list`);
      }
      if (member) this.checkSelfApproval(row, member, decision);
    } else {
      if (!member) throw new ForbiddenError(`${who} is not linked to a Warden user, so their approver scope is unknown`);
      this.checkScope(row, member, decision);
    }
    return {
      userId: member?.userId ?? null,
      name: member ? member.name ?? member.sub : `${actor.platform}:${actor.externalId}`,
      openId: actor.externalId,
      platform: actor.platform,
    };
  }

  private checkScope(row: ConfirmationRequest, member: MemberView, decision: Decision): void {
    const inScope =
      row.approverScope === 'org_members' ||
      (row.approverScope === 'org_admins' && member.roles.includes('admin')) ||
      (row.approverScope === 'initiator' && member.userId === row.requestedBy) ||
      (row.approverScope === 'agent_owner' && member.userId === row.agentOwnerId);
    if (!inScope) throw new ForbiddenError(`only ${SCOPE_WORDS[row.approverScope] ?? row.approverScope} may decide this request`);
    this.checkSelfApproval(row, member, decision);
  }

  /** Rejecting one's own request only stops it; approving it is what the agent's policy may forbid. */
  private checkSelfApproval(row: ConfirmationRequest, member: MemberView, decision: Decision): void {
    if (decision === 'approve' && row.forbidSelfApproval && member.userId === row.requestedBy) {
      throw new ForbiddenError('self-approval is forbidden for this agent: another approver must approve');
    }
  }
}
