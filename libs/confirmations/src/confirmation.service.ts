import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { UsersService } from '@warden/auth';
import {
  ChannelsService,
  type ApprovalDecisionSink,
  type ChannelRecord,
  type ChatPlatform,
  type Decision,
  type DecidedCard,
  type DecisionOutcome,
} from '@warden/channels';
import { AuditTrail, AppConfig, ConflictError, DomainException, ForbiddenError, NotFoundError } from '@warden/common';
import { approvalCardOf } from './approval-card.js';
import { approversOf, refusalFor, type ResolvedDecider } from './approver-check.js';
import { approvalEdit } from './edits/approval-edit.js';
import { answeredArgs } from './edits/human-task.js';
import { BatchCards } from './batch/batch-cards.js';
import { decideAllOnCard } from './batch/decide-all.js';
import { checkStandingGrant, StandingApprovals, type StandingGrant } from './standing/standing-approvals.js';
import { ConfirmationStore } from './confirmation.store.js';
import { ConfirmationVotesStore } from './confirmation-votes.store.js';
import { approvalsProgress, CONFIRMATION_SETTLED, ConfirmationStatus, type ConfirmationRequest } from './confirmation.types.js';
import { confirmationEvent } from './confirmation-audit.js';

/** A signed-in user deciding through the API (the inbox). */
export interface UserActor {
  userId: string;
}

/** A verified click in a chat app, on the channel the card was sent to. */
export interface PlatformActor {
  platform: ChatPlatform;
  externalId: string;
  channelId: string;
}

export interface DecideInput {
  orgId: string;
  confirmationId: string;
  decision: Decision;
  reason?: string;
  /** Approve with changes: the approver's edited args (validated against the action's parameter schema). */
  args?: Record<string, unknown>;
  /** A question (ask_human, HUMAN node): the person's answer, validated against its form. */
  answer?: unknown;
  /** Approve for this run: later calls of the same tool within this bound pass without asking. */
  standing?: StandingGrant;
  actor: UserActor | PlatformActor;
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
    private readonly votes: ConfirmationVotesStore,
    private readonly users: UsersService,
    private readonly channels: ChannelsService,
    private readonly config: AppConfig,
    private readonly standing: StandingApprovals,
    private readonly batches: BatchCards,
    private readonly audit: AuditTrail,
  ) {}

  onModuleInit(): void {
    this.channels.setDecisionSink(this);
  }

  async get(orgId: string, id: string): Promise<ConfirmationRequest> {
    const row = await this.store.findInOrg(orgId, id);
    if (!row) throw new NotFoundError('confirmation', id);
    return row;
  }

  /**
   * Records one person's decision. A rejection ends the request; an approval counts towards its tier's number of
   * distinct approvals and settles it once enough are in. A second approval from the same person changes nothing.
   */
  async decide(input: DecideInput): Promise<ConfirmationRequest> {
    const row = await this.get(input.orgId, input.confirmationId);
    // A click on a card of channel A must not decide a request that was sent to channel B.
    // (or to its escalation channel, once escalated)
    if ('platform' in input.actor && row.channelId !== input.actor.channelId && row.escalationChannelId !== input.actor.channelId) {
      throw new NotFoundError('confirmation', input.confirmationId);
    }
    const decider = await this.authorize(row, input.decision, input.actor);
    if (row.status !== ConfirmationStatus.Pending) throw this.alreadyDecided(row);
    const { member, via } = decider;
    const name = member.name ?? member.sub;
    // Checked before the vote is recorded: an edit that breaks the schema decides nothing.
    const edit = approvalEdit(row, input.decision, answeredArgs(row, input.decision, input.answer, input.args), { userId: member.userId, name });
    checkStandingGrant(row, input.decision, input.standing, edit?.args ?? row.args);
    const counted = await this.votes.record({
      confirmationId: row.id, userId: member.userId, userName: name, decision: input.decision,
      platform: via?.platform ?? null, externalId: via?.externalId ?? null, approvers: approversOf(row), tier: row.tier,
    });
    const decidedBy = { userId: member.userId, name, platform: via?.platform ?? null, externalId: via?.externalId ?? null, reason: input.reason?.trim() || null };
    // The settling vote's audit event is chained after the decision commits, with the decision's, in one write: the
    // waiting call is released without waiting for the audit chain.
    const settle = async (decision: 'approve' | 'reject', vote?: ConfirmationRequest): Promise<ConfirmationRequest> => {
      const settled = await this.store.settle(row.id, {
        status: decision === 'approve' ? ConfirmationStatus.Approved : ConfirmationStatus.Rejected,
        respondedByUserId: member.userId,
        respondedByOpenId: via?.externalId ?? null,
        respondedByPlatform: via?.platform ?? null,
        respondedByName: name,
        reason: input.reason?.trim() || null,
        // A settlement recovered from an earlier vote of another kind carries none of this decision's edit.
        edit: decision === input.decision ? edit : undefined,
      });
      if (!settled) {
        if (vote) await this.audit.record(confirmationEvent(vote, 'vote', { ...decidedBy, decision: input.decision }));
        return this.lostRace(row);
      }
      await this.audit.record([
        ...(vote ? [confirmationEvent(vote, 'vote', { ...decidedBy, decision: input.decision })] : []),
        confirmationEvent(settled, decision === 'approve' ? 'approved' : 'rejected', decidedBy),
      ]);
      // After the decision: a grant that failed to record only means later calls ask again (fail closed).
      if (input.standing && decision === input.decision && settled.status === ConfirmationStatus.Approved) {
        await this.standing.grant(settled, input.standing).catch((err: unknown) => this.logger.error(`standing approval of ${row.id} not recorded: ${(err as Error).message}`));
      }
      return settled;
    };
    if (!counted) {
      const now = (await this.store.findById(row.id)) ?? row;
      const mine = now.status === ConfirmationStatus.Pending && now.expiresAt > new Date() ? await this.votes.voteOf(row.id, member.userId) : null;
      // This person's vote was counted but the settlement it called for never committed (the server died or its
      // connection dropped between the two statements): it settles now, or the request would stay stuck pending.
      if (mine && (mine === 'reject' || now.approvalsGiven >= now.approvalsRequired)) return settle(mine);
      // The same person again counts nothing; says so, as any other decision that changes nothing.
      if (mine === 'approve' && input.decision === 'approve') {
        throw new ConflictError(`you have already approved confirmation ${row.id}; ${approvalsProgress(now)} so far`, { status: now.status });
      }
      return this.lostRace(row);
    }
    if (input.decision === 'approve' && counted.approvalsGiven < counted.approvalsRequired) {
      await this.audit.record(confirmationEvent(counted, 'vote', { ...decidedBy, decision: input.decision }));
      void this.refreshPendingCard(counted);
      return counted;
    }
    // Exactly one vote completes the quorum, and only it settles: a vote counted after it changes nothing.
    if (input.decision === 'approve' && counted.approvalsGiven > counted.approvalsRequired) {
      await this.audit.record(confirmationEvent(counted, 'vote', { ...decidedBy, decision: input.decision }));
      const now = (await this.store.findById(row.id)) ?? counted;
      if (now.status !== ConfirmationStatus.Pending) throw this.alreadyDecided(now);
      throw new ConflictError(`confirmation ${row.id} already has the approvals it needs`, { status: now.status });
    }
    return settle(input.decision, counted);
  }

  /** Lost the race, or the deadline passed while nobody was waiting (e.g. the process was down): say which. */
  private async lostRace(row: ConfirmationRequest): Promise<never> {
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
  async expire(id: string, by: string, reason: string): Promise<ConfirmationRequest | null> {
    const expired = await this.store.settle(id, { status: ConfirmationStatus.Expired, respondedByName: by, reason });
    if (expired) await this.audit.record(confirmationEvent(expired, 'expired', { userId: null, name: by, reason }));
    return expired;
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
      if (row.status === ConfirmationStatus.Pending) return { ok: true, message: `Approval recorded: ${approvalsProgress(row)}` };
      const verb = row.status === ConfirmationStatus.Approved ? 'Approved' : 'Rejected';
      // A turn's card lists other calls too: it is re-rendered from the rows (markCardDecided), not replaced by this one.
      return { ok: true, message: `${verb} by ${row.respondedByName}`, ...(row.batchKey ? { settled: true } : { decided: toDecidedCard(row) }) };
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

  /** After any settlement in this process: replace the platform card with its decided version (best effort). */
  @OnEvent(CONFIRMATION_SETTLED, { async: true })
  async markCardDecided(row: ConfirmationRequest): Promise<void> {
    if (row.escalationChannelId && row.escalationCard) void this.markEscalationCardDecided(row);
    if (row.batchKey) return this.batches.refresh(row.batchKey, row.orgId);
    if (!row.channelId || !row.sentCard) return;
    try {
      const { record, impl } = await this.channels.resolveForDelivery(row.orgId, row.channelId);
      if (record.id !== row.channelId) return;
      await impl.markDecided(record, row.sentCard, toDecidedCard(row));
    } catch (err) {
      this.logger.warn(`could not mark the card of confirmation ${row.id} as ${row.status}: ${(err as Error).message}`);
    }
  }

  private async markEscalationCardDecided(row: ConfirmationRequest): Promise<void> {
    try {
      const { record, impl } = await this.channels.resolveForDelivery(row.orgId, row.escalationChannelId!);
      if (record.id === row.escalationChannelId) await impl.markDecided(record, row.escalationCard!, toDecidedCard(row));
    } catch (err) {
      this.logger.warn(`could not mark the escalation card of confirmation ${row.id} as ${row.status}: ${(err as Error).message}`);
    }
  }

  /** After a partial approval: the card shows the count ("1 of 2 given"), best effort. */
  private async refreshPendingCard(row: ConfirmationRequest): Promise<void> {
    if (row.batchKey) return this.batches.refresh(row.batchKey, row.orgId);
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

  /**
   * Resolves who is deciding to a Warden user — the signed-in user, or the user a proven chat identity is linked
   * to — and applies the request's approver policy (approver-check.ts). An identity linked to nobody decides
   * nothing, even when the channel lists it: without a user, self-approval could not be ruled out.
   */
  async authorize(row: ConfirmationRequest, decision: Decision, actor: UserActor | PlatformActor): Promise<ResolvedDecider> {
    const list = await this.channels.approverList(row.orgId, row.channelId);
    let decider: ResolvedDecider;
    if ('userId' in actor) {
      const member = await this.users.memberById(row.orgId, actor.userId);
      if (!member) throw new ForbiddenError('you are not a member of the organisation that owns this request');
      decider = { member };
    } else {
      const who = `${actor.platform} user ${actor.externalId}`;
      const member = await this.users.memberByIdentity(row.orgId, actor.platform, actor.externalId);
      if (!member) {
        const listed = list.ids && (list.ids.includes('*') || list.ids.includes(actor.externalId));
        if (list.ids && !listed && approversOf(row).includes('channel')) throw new ForbiddenError(`${who} is not in this channel's approver list`);
        throw new ForbiddenError(`${who} is not linked to a Warden user, so Warden cannot tell who is deciding: link the account first (POST /api/me/identities/link)`);
      }
      decider = { member, via: { platform: actor.platform, externalId: actor.externalId } };
    }
    const refusal = refusalFor(row, decider, decision, list);
    if (refusal) throw new ForbiddenError(refusal);
    return decider;
  }
}
