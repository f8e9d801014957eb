import { Injectable, Logger } from '@nestjs/common';
import { UsersService } from '@warden/auth';
import type { Decision } from '@warden/channels';
import { AuditTrail, ConflictError, NotFoundError } from '@warden/common';
import type { ResolvedDecider } from './approver-check.js';
import { DeciderResolver, type Actor, type MemberLookup } from './decider-resolver.js';
import { approvalEdit } from './edits/approval-edit.js';
import { EditRetier, type Retiered } from './edits/edit-retier.js';
import { answeredArgs } from './edits/human-task.js';
import { checkStandingGrant, StandingApprovals } from './standing/standing-approvals.js';
import { decidesAlone, settlementOf, voteOf, type DecideInput, type Deciding, type VoteBound } from './deciding.js';
import { StandingCoversWaiting } from './standing/standing-waiting.js';
import { ConfirmationCards } from './confirmation-cards.js';
import { ConfirmationStore } from './confirmation.store.js';
import { ConfirmationVotesStore } from './confirmation-votes.store.js';
import { approvalsProgress, ConfirmationStatus, reasonOf, type ConfirmationRequest } from './confirmation.types.js';
import { confirmationEvent } from './confirmation-audit.js';
import { IntegrityAlarm } from './integrity/integrity-alarm.js';

export type { DecideInput } from './deciding.js';
export type { PlatformActor, UserActor } from './decider-resolver.js';

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
    private readonly deciders: DeciderResolver,
    private readonly retier: EditRetier,
    private readonly standing: StandingApprovals,
    private readonly waiting: StandingCoversWaiting,
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
    if (
      'platform' in input.actor &&
      row.channelId !== input.actor.channelId &&
      row.escalationChannelId !== input.actor.channelId
    ) {
      throw new NotFoundError('confirmation', input.confirmationId);
    }
    const decider = await this.authorize(row, input.decision, input.actor, membership);
    if (row.status !== ConfirmationStatus.Pending) throw this.alreadyDecided(row);
    const { member, via } = decider;
    const name = member.name ?? member.sub;
    if (!row.argsIntact) throw await this.integrity.refuse(row, { userId: member.userId, name });
    // Checked before the vote is recorded: an edit that breaks the schema decides nothing.
    const proposed = approvalEdit(row, input.decision, answeredArgs(row, input.decision, input.answer, input.args), {
      userId: member.userId,
      name,
    });
    // An edit re-enters decide: the tier of the edited args may need more than this approval (edit-retier.ts).
    const retiered = proposed ? await this.retier.retier(row, decider, proposed) : undefined;
    const edit = retiered?.edit;
    checkStandingGrant(row, input.decision, input.standing, edit?.args ?? row.args);
    const decidedBy = {
      userId: member.userId,
      name,
      platform: via?.platform ?? null,
      externalId: via?.externalId ?? null,
      reason: reasonOf(input.reason),
    };
    const deciding: Deciding = { row, input, decider, name, edit, decidedBy };
    if (retiered && !retiered.settles) return this.rebound(deciding, retiered);
    const counted = decidesAlone(deciding)
      ? await this.store.voteAndSettle(voteOf(deciding, row, false), settlementOf(deciding, input.decision))
      : await this.vote(
          deciding,
          edit ?? row,
          input.decision === 'reject' || row.approvalsGiven + 1 >= row.approvalsRequired,
        );
    if (!counted) return this.uncounted(deciding);
    if (counted.status !== ConfirmationStatus.Pending) return this.settled(deciding, input.decision, counted, counted);
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

  /** Records this person's vote as a grant statement on `bound`'s digest and tier (the row's, or the edit's). */
  private vote(d: Deciding, bound: VoteBound, settles: boolean) {
    return this.votes.record(voteOf(d, bound, settles));
  }

  /** An edit into a tier the editor alone cannot satisfy: the request now waits for that tier's approvals. */
  private async rebound(d: Deciding, r: Extract<Retiered, { settles: false }>): Promise<ConfirmationRequest> {
    const rebound = await this.retier.rebind(d.row, r);
    if (!rebound) return this.lostRace(d.row);
    const counted = r.editorQualifies ? await this.vote(d, r.edit, false) : null;
    const now = counted ?? rebound;
    await this.audit.record(confirmationEvent(now, 'vote', { ...d.decidedBy, decision: 'approve' }));
    void this.cards.refreshPendingCard(now);
    return now;
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

  /** Who is deciding, as a Warden user allowed by the request's approver policy (DeciderResolver). */
  authorize(
    row: ConfirmationRequest,
    decision: Decision,
    actor: Actor,
    userMember?: MemberLookup,
  ): Promise<ResolvedDecider> {
    return this.deciders.resolve(row, decision, actor, userMember);
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
    const mine =
      now.status === ConfirmationStatus.Pending && now.expiresAt > new Date()
        ? await this.votes.voteOf(row.id, userId)
        : null;
    if (mine && (mine === 'reject' || now.approvalsGiven >= now.approvalsRequired)) return this.settle(d, mine);
    // The same person again counts nothing — a vote is not changed either — and says so, as any other decision that
    // changes nothing (not lostRace: the request is open, there is nothing to expire).
    if (mine === 'approve') {
      const change = input.decision === 'reject' ? ' (a vote cannot be changed)' : '';
      throw new ConflictError(
        `you have already approved confirmation ${row.id}${change}; ${approvalsProgress(now)} so far`,
        {
          status: now.status,
        },
      );
    }
    return this.lostRace(row);
  }

  /**
   * Settles the request with `decision`. The settling vote's audit event is chained after the decision commits, with
   * the decision's, in one write: the waiting call is released without waiting for the audit chain.
   */
  private async settle(
    d: Deciding,
    decision: 'approve' | 'reject',
    vote?: ConfirmationRequest,
  ): Promise<ConfirmationRequest> {
    const { row, input, decidedBy } = d;
    const settled = await this.store.settle(row.id, {
      ...settlementOf(d, decision),
      // A settlement recovered from an earlier vote of another kind carries none of this decision's edit.
      edit: decision === input.decision ? d.edit : undefined,
    });
    if (!settled) {
      if (vote) await this.audit.record(confirmationEvent(vote, 'vote', { ...decidedBy, decision: input.decision }));
      return this.lostRace(row);
    }
    return this.settled(d, decision, settled, vote);
  }

  /** What follows a settlement here: its events chained (the vote's first), a standing grant recorded and applied. */
  private async settled(
    d: Deciding,
    decision: 'approve' | 'reject',
    settled: ConfirmationRequest,
    vote?: ConfirmationRequest,
  ): Promise<ConfirmationRequest> {
    const { row, input, decidedBy } = d;
    const events = [
      ...(vote ? [confirmationEvent(vote, 'vote', { ...decidedBy, decision: input.decision })] : []),
      confirmationEvent(settled, decision === 'approve' ? 'approved' : 'rejected', decidedBy),
    ];
    // After the decision, chained with its events: a grant that failed to record only means later calls ask again.
    // It also covers the calls of the run already waiting (standing-waiting.ts), as it covers later ones.
    if (input.standing && decision === input.decision && settled.status === ConfirmationStatus.Approved) {
      const granted = await this.standing.grant(settled, input.standing, events).catch(async (err: unknown) => {
        this.logger.error(`standing approval of ${row.id} not recorded: ${(err as Error).message}`);
        await this.audit.record(events);
      });
      if (granted) await this.waiting.cover(settled, granted);
    } else await this.audit.record(events);
    return settled;
  }

  /** Lost the race, or the deadline passed while nobody was waiting (e.g. the process was down): say which. */
  private async lostRace(row: ConfirmationRequest): Promise<never> {
    const now = (await this.store.findById(row.id)) ?? row;
    if (now.status === ConfirmationStatus.Pending) {
      const closed =
        (await this.expire(row.id, 'timeout', 'no decision before the deadline')) ??
        (await this.store.findById(row.id)) ??
        now;
      throw this.alreadyDecided(closed);
    }
    throw this.alreadyDecided(now);
  }

  private alreadyDecided(row: ConfirmationRequest): ConflictError {
    return new ConflictError(`confirmation ${row.id} is already ${row.status}`, { status: row.status });
  }
}
