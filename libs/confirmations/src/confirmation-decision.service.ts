import { Injectable, Logger } from '@nestjs/common';
import { UsersService } from '@warden/auth';
import { ChannelsService, type ChatPlatform, type Decision } from '@warden/channels';
import { AuditTrail, ConflictError, ForbiddenError, NotFoundError } from '@warden/common';
import { approversOf, refusalFor, type ResolvedDecider } from './approver-check.js';
import { approvalEdit } from './edits/approval-edit.js';
import { answeredArgs } from './edits/human-task.js';
import { checkStandingGrant, StandingApprovals, type StandingGrant } from './standing/standing-approvals.js';
import { ConfirmationCards } from './confirmation-cards.js';
import { ConfirmationStore } from './confirmation.store.js';
import { ConfirmationVotesStore } from './confirmation-votes.store.js';
import { approvalsProgress, ConfirmationStatus, reasonOf, type ConfirmationRequest } from './confirmation.types.js';
import { confirmationEvent } from './confirmation-audit.js';
import { IntegrityAlarm } from './integrity/integrity-alarm.js';

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
  actor: Actor;
}
type Actor = UserActor | PlatformActor;
type MemberLookup = ReturnType<UsersService['memberById']>;

/** One decision under way: the request as read, who decides, and what their decision carries. */
interface Deciding {
  row: ConfirmationRequest;
  input: DecideInput;
  decider: ResolvedDecider;
  name: string;
  edit: ReturnType<typeof approvalEdit>;
  decidedBy: { userId: string; name: string; platform: ChatPlatform | null; externalId: string | null; reason: string | null };
}

/**
 * Where confirmations are decided: people's votes (with edits and standing grants), and closings without a human
 * decision (expiry, a failed delivery). Every settlement ends in `ConfirmationStore.settle`, whose
 * `WHERE status = 'pending'` lets exactly one decision win. A refusal (scope, self-approval, wrong channel) is
 * checked before any statement and changes nothing.
 */
@Injectable()
export class ConfirmationDecisionService {
  private readonly logger = new Logger(ConfirmationDecisionService.name);

  constructor(
    private readonly store: ConfirmationStore,
    private readonly votes: ConfirmationVotesStore,
    private readonly users: UsersService,
    private readonly channels: ChannelsService,
    private readonly standing: StandingApprovals,
    private readonly cards: ConfirmationCards,
    private readonly audit: AuditTrail,
    private readonly integrity: IntegrityAlarm,
  ) {}

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
    // The signed-in decider's membership is read beside the request, not after it (a failure surfaces in authorize).
    const membership = 'userId' in input.actor ? this.users.memberById(input.orgId, input.actor.userId) : undefined;
    membership?.catch(() => undefined);
    const row = await this.get(input.orgId, input.confirmationId);
    // A click on a card of channel A must not decide a request sent to channel B (or to its escalation channel).
    if ('platform' in input.actor && row.channelId !== input.actor.channelId && row.escalationChannelId !== input.actor.channelId) {
      throw new NotFoundError('confirmation', input.confirmationId);
    }
    const decider = await this.authorize(row, input.decision, input.actor, membership);
    if (row.status !== ConfirmationStatus.Pending) throw this.alreadyDecided(row);
    const { member, via } = decider;
    const name = member.name ?? member.sub;
    if (!row.argsIntact) throw await this.integrity.refuse(row, { userId: member.userId, name });
    // Checked before the vote is recorded: an edit that breaks the schema decides nothing.
    const edit = approvalEdit(row, input.decision, answeredArgs(row, input.decision, input.answer, input.args), {
      userId: member.userId,
      name,
    });
    checkStandingGrant(row, input.decision, input.standing, edit?.args ?? row.args);
    const counted = await this.votes.record({
      confirmationId: row.id,
      userId: member.userId,
      userName: name,
      decision: input.decision,
      platform: via?.platform ?? null,
      externalId: via?.externalId ?? null,
      approvers: approversOf(row),
      tier: row.tier,
      settles: input.decision === 'reject' || row.approvalsGiven + 1 >= row.approvalsRequired,
    });
    const decidedBy = {
      userId: member.userId,
      name,
      platform: via?.platform ?? null,
      externalId: via?.externalId ?? null,
      reason: reasonOf(input.reason),
    };
    const deciding: Deciding = { row, input, decider, name, edit, decidedBy };
    if (!counted) return this.uncounted(deciding);
    if (input.decision === 'approve' && counted.approvalsGiven < counted.approvalsRequired) {
      await this.audit.record(confirmationEvent(counted, 'vote', { ...decidedBy, decision: input.decision }));
      void this.cards.refreshPendingCard(counted);
      return counted;
    }
    // Exactly one vote completes the quorum, and only it settles: a vote counted after it changes nothing.
    if (input.decision === 'approve' && counted.approvalsGiven > counted.approvalsRequired) {
      await this.audit.record(confirmationEvent(counted, 'vote', { ...decidedBy, decision: input.decision }));
      const now = (await this.store.findById(row.id)) ?? counted;
      if (now.status !== ConfirmationStatus.Pending) throw this.alreadyDecided(now);
      throw new ConflictError(`confirmation ${row.id} already has the approvals it needs`, { status: now.status });
    }
    return this.settle(deciding, input.decision, counted);
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

  /**
   * Resolves who is deciding to a Warden user — the signed-in user, or the user a proven chat identity is linked
   * to — and applies the request's approver policy (approver-check.ts). An identity linked to nobody decides
   * nothing, even when the channel lists it: without a user, self-approval could not be ruled out.
   */
  async authorize(row: ConfirmationRequest, decision: Decision, actor: Actor, userMember?: MemberLookup): Promise<ResolvedDecider> {
    // The channel's approver list is read beside the decider's membership (and awaited once that is known).
    const listing = this.channels.approverList(row.orgId, row.channelId);
    listing.catch(() => undefined);
    let decider: ResolvedDecider;
    if ('userId' in actor) {
      const member = await (userMember ?? this.users.memberById(row.orgId, actor.userId));
      if (!member) throw new ForbiddenError('you are not a member of the organisation that owns this request');
      decider = { member };
    } else {
      const who = `${actor.platform} user ${actor.externalId}`;
      const member = await this.users.memberByIdentity(row.orgId, actor.platform, actor.externalId);
      const list = await listing;
      if (!member) {
        const listed = list.ids && (list.ids.includes('*') || list.ids.includes(actor.externalId));
        if (list.ids && !listed && approversOf(row).includes('channel'))
          throw new ForbiddenError(`${who} is not in this channel's approver list`);
        throw new ForbiddenError(
          `${who} is not linked to a Warden user, so Warden cannot tell who is deciding: link the account first (POST /api/me/identities/link)`,
        );
      }
      decider = { member, via: { platform: actor.platform, externalId: actor.externalId } };
    }
    const refusal = refusalFor(row, decider, decision, await listing);
    if (refusal) throw new ForbiddenError(refusal);
    return decider;
  }

  /**
   * The vote was not counted: the same person again, a request no longer pending — or this person's vote was counted
   * earlier but the settlement it called for never committed (the server died or its connection dropped between the
   * two statements): that settles now, or the request would stay stuck pending.
   */
  private async uncounted(d: Deciding): Promise<ConfirmationRequest> {
    const { row, input } = d;
    const userId = d.decider.member.userId;
    const now = (await this.store.findById(row.id)) ?? row;
    const mine = now.status === ConfirmationStatus.Pending && now.expiresAt > new Date() ? await this.votes.voteOf(row.id, userId) : null;
    if (mine && (mine === 'reject' || now.approvalsGiven >= now.approvalsRequired)) return this.settle(d, mine);
    // The same person again counts nothing — a vote is not changed either — and says so, as any other decision that
    // changes nothing (not lostRace: the request is open, there is nothing to expire).
    if (mine === 'approve') {
      const change = input.decision === 'reject' ? ' (a vote cannot be changed)' : '';
      throw new ConflictError(`you have already approved confirmation ${row.id}${change}; ${approvalsProgress(now)} so far`, {
        status: now.status,
      });
    }
    return this.lostRace(row);
  }

  /**
   * Settles the request with `decision`. The settling vote's audit event is chained after the decision commits, with
   * the decision's, in one write: the waiting call is released without waiting for the audit chain.
   */
  private async settle(d: Deciding, decision: 'approve' | 'reject', vote?: ConfirmationRequest): Promise<ConfirmationRequest> {
    const { row, input, decidedBy } = d;
    const via = d.decider.via;
    const settled = await this.store.settle(row.id, {
      status: decision === 'approve' ? ConfirmationStatus.Approved : ConfirmationStatus.Rejected,
      respondedByUserId: d.decider.member.userId,
      respondedByOpenId: via?.externalId ?? null,
      respondedByPlatform: via?.platform ?? null,
      respondedByName: d.name,
      reason: reasonOf(input.reason),
      // A settlement recovered from an earlier vote of another kind carries none of this decision's edit.
      edit: decision === input.decision ? d.edit : undefined,
    });
    if (!settled) {
      if (vote) await this.audit.record(confirmationEvent(vote, 'vote', { ...decidedBy, decision: input.decision }));
      return this.lostRace(row);
    }
    const events = [
      ...(vote ? [confirmationEvent(vote, 'vote', { ...decidedBy, decision: input.decision })] : []),
      confirmationEvent(settled, decision === 'approve' ? 'approved' : 'rejected', decidedBy),
    ];
    // After the decision, chained with its events: a grant that failed to record only means later calls ask again.
    if (input.standing && decision === input.decision && settled.status === ConfirmationStatus.Approved) {
      await this.standing.grant(settled, input.standing, events).catch(async (err: unknown) => {
        this.logger.error(`standing approval of ${row.id} not recorded: ${(err as Error).message}`);
        await this.audit.record(events);
      });
    } else await this.audit.record(events);
    return settled;
  }

  /** Lost the race, or the deadline passed while nobody was waiting (e.g. the process was down): say which. */
  private async lostRace(row: ConfirmationRequest): Promise<never> {
    const now = (await this.store.findById(row.id)) ?? row;
    if (now.status === ConfirmationStatus.Pending) {
      const closed =
        (await this.expire(row.id, 'timeout', 'no decision before the deadline')) ?? (await this.store.findById(row.id)) ?? now;
      throw this.alreadyDecided(closed);
    }
    throw this.alreadyDecided(now);
  }

  private alreadyDecided(row: ConfirmationRequest): ConflictError {
    return new ConflictError(`confirmation ${row.id} is already ${row.status}`, { status: row.status });
  }
}
