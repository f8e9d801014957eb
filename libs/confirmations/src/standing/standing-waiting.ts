import { Injectable, Logger } from '@nestjs/common';
import { AuditTrail } from '@warden/common';
import { argsWithinBound, type GrantStatement } from '@warden/hooks';
import { approvalRefusal } from '@warden/policy';
import { DataSource } from 'typeorm';
import { approversOf } from '../approver-check.js';
import { confirmationEvent } from '../confirmation-audit.js';
import { ConfirmationStore } from '../confirmation.store.js';
import { ConfirmationStatus, type ConfirmationRequest } from '../confirmation.types.js';
import { ConfirmationVotesStore } from '../confirmation-votes.store.js';
import { DeciderResolver } from '../decider-resolver.js';
import { isHumanTask } from '../edits/human-task.js';
import { standingEvent } from './standing-audit.js';
import { StandingApprovalStore, type StandingApproval } from './standing-approval.store.js';

/**
 * "Also approve similar calls in this run" covers the calls of the run that are already waiting when it is given, as
 * it covers later ones: each pending request of the same run and tool that the grant may cover is decided by the
 * grant's principal — a vote (a grant statement on that request's digest, tier and policy version) that settles it,
 * audited as any approval plus a `standing_approval.used` event, one use taken. The settlement wakes the waiting
 * call and takes the request out of the inbox and its card (CONFIRMATION_SETTLED, as any decision).
 *
 * A waiting request is covered only when: it is no question (ask_human, HUMAN node), no hook asked about it, its args
 * are intact, it needs one approval, its tier and policy version are the grant's (never a stricter tier), the
 * grant's CEL bound holds on its args, the kernel finds the statement sufficient (`approvalRefusal`), and the
 * grant's principal may decide it under its own approver policy (scope, self-approval, membership).
 */
@Injectable()
export class StandingCoversWaiting {
  private readonly logger = new Logger(StandingCoversWaiting.name);

  constructor(
    private readonly store: ConfirmationStore,
    private readonly votes: ConfirmationVotesStore,
    private readonly deciders: DeciderResolver,
    private readonly standing: StandingApprovalStore,
    private readonly audit: AuditTrail,
    private readonly dataSource: DataSource,
  ) {}

  /**
   * Settles the requests of `granted`'s run that `s` covers; returns them.
   * Never throws (a failure leaves them pending).
   */
  async cover(granted: ConfirmationRequest, s: StandingApproval): Promise<ConfirmationRequest[]> {
    const covered: ConfirmationRequest[] = [];
    try {
      const now = Date.now();
      const waiting = (await this.store.findByRun(granted.runId))
        .filter((r) => r.id !== granted.id && r.status === ConfirmationStatus.Pending && r.expiresAt.getTime() > now)
        .filter((r) => r.tool === s.tool && r.orgId === s.orgId)
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
      for (const row of waiting) {
        if (!(await this.mayCover(row, s))) continue;
        const settled = await this.settle(row, s);
        if (settled === 'exhausted') break;
        if (settled) covered.push(settled);
      }
    } catch (err) {
      this.logger.error(
        `standing approval #${s.id}: waiting requests of run ${granted.runId} not covered: ${(err as Error).message}`,
      );
    }
    return covered;
  }

  /**
   * A request recorded while a grant of its run was being given (ApprovalRequestOpener): the gate looked for a grant
   * before the grant committed, and the grant's `cover` may have looked for waiting requests before this row
   * committed. Looked at again once the row is committed, one side sees the other (a request both settle is settled
   * once: the grant's use is unique per call). Returns the row a grant settled, or null. Never throws.
   */
  async coverRecorded(row: ConfirmationRequest): Promise<ConfirmationRequest | null> {
    try {
      for (const s of await this.standing.activeFor(row.runId, row.tool)) {
        if (s.orgId !== row.orgId || !(await this.mayCover(row, s))) continue;
        const settled = await this.settle(row, s);
        if (settled && settled !== 'exhausted') return settled;
      }
    } catch (err) {
      this.logger.error(`run ${row.runId}: request ${row.id} not covered by a grant: ${(err as Error).message}`);
    }
    return null;
  }

  private async mayCover(row: ConfirmationRequest, s: StandingApproval): Promise<boolean> {
    if (isHumanTask(row) || row.askReason || !row.argsIntact || s.grantedByUserId === null) return false;
    if (row.argsDigest === null || row.policyVersion === null) return false;
    if (row.approvalsRequired !== 1 || row.tier !== s.tier || row.policyVersion !== s.policyVersion) return false;
    if (!argsWithinBound(s.condition, row.args)) return false;
    const requirement = { tier: row.tier, approvals: row.approvalsRequired, approvers: approversOf(row) };
    const grant = statement(row.argsDigest, s);
    if (approvalRefusal(requirement, row.policyVersion, row.argsDigest, [grant]) !== null) return false;
    // The grant's principal must be someone this request's own approver policy allows.
    return this.deciders.resolve(row, 'approve', { userId: s.grantedByUserId }).then(
      () => true,
      () => false,
    );
  }

  /** One use of the grant for this request's call, then the grant's principal's vote that settles it. */
  private async settle(
    row: ConfirmationRequest,
    s: StandingApproval,
  ): Promise<ConfirmationRequest | 'exhausted' | null> {
    const { callId, argsDigest } = row;
    if (argsDigest === null) return null;
    const used = await this.dataSource.transaction(async (m) => {
      const taken = await this.standing.use(s.id, row.runId, callId, argsDigest, m);
      if (taken) await this.audit.record(standingEvent('used', taken, { actor: null, callId, argsDigest }), m);
      return taken;
    });
    if (!used) return 'exhausted';
    const userId = s.grantedByUserId ?? '';
    const name = `${s.grantedByName} (standing approval #${s.id})`;
    const counted = await this.votes.record({
      confirmationId: row.id,
      userId,
      userName: s.grantedByName,
      decision: 'approve',
      platform: null,
      externalId: null,
      approvers: approversOf(row),
      tier: row.tier,
      argsDigest,
      policyVersion: row.policyVersion,
      settles: true,
    });
    if (!counted || counted.approvalsGiven < counted.approvalsRequired) return null;
    const reason = `covered by standing approval #${s.id} (${s.condition}) given on confirmation ${s.confirmationId}`;
    const settled = await this.store.settle(row.id, {
      status: ConfirmationStatus.Approved,
      respondedByUserId: userId,
      respondedByName: name,
      reason,
    });
    if (!settled) return null;
    const decidedBy = { userId, name, platform: null, externalId: null, reason };
    await this.audit.record([
      confirmationEvent(counted, 'vote', { ...decidedBy, decision: 'approve' }),
      confirmationEvent(settled, 'approved', decidedBy),
    ]);
    return settled;
  }
}

/** The statement the grant makes about this request: its principal allows this digest, at this tier and version. */
function statement(digest: string, s: StandingApproval): GrantStatement {
  return {
    kind: 'standing',
    principal: s.grantedByUserId ?? '',
    digest,
    policyVersion: s.policyVersion ?? '',
    tier: s.tier,
  };
}
