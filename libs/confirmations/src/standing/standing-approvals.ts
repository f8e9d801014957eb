import { Injectable } from '@nestjs/common';
import { AuditTrail, BadInputError, type AuditEventInput } from '@warden/common';
import { DataSource, type EntityManager } from 'typeorm';
import {
  actionDigest,
  argsWithinBound,
  checkConfirmationCondition,
  type AgentHookSettings,
  type HookContext,
  type HookResult,
  type PolicyInForce,
} from '@warden/hooks';
import { policyInForce, policyVersion, requirementOf } from '@warden/policy';
import type { ConfirmationRequest } from '../confirmation.types.js';
import { isHumanTask } from '../edits/human-task.js';
import { standingEvent } from './standing-audit.js';
import { StandingApprovalStore, type StandingApproval } from './standing-approval.store.js';

/** What an approver asks for with "approve for this run". */
export interface StandingGrant {
  /** CEL over `args` a later call must satisfy (the approver sees and writes it), e.g. `args.amount <= 70000`. */
  when: string;
  /** At most this many calls, the approved one included (default 10). */
  maxCalls?: number;
  /** For at most this long (default 60). */
  minutes?: number;
}

const DEFAULT_MAX_CALLS = 10;
const DEFAULT_MINUTES = 60;

/**
 * Checks a grant before anything is recorded (400 naming the problem): approve only, one-approval requests only (a
 * quorum cannot be extended by one person), CEL that type-checks and holds on the call being approved.
 */
export function checkStandingGrant(
  row: ConfirmationRequest,
  decision: 'approve' | 'reject',
  grant: StandingGrant | undefined,
  args: Record<string, unknown>,
): void {
  if (!grant) return;
  if (decision !== 'approve') throw new BadInputError('standing can only be given with decision "approve"');
  // An answer is this person's reply to this question: standing for later questions would let the model answer them.
  if (isHumanTask(row))
    throw new BadInputError(
      `confirmation ${row.id} is a question: its answer cannot stand for later questions (omit standing)`,
    );
  if (row.approvalsRequired > 1)
    throw new BadInputError(
      `confirmation ${row.id} needs ${row.approvalsRequired} distinct approvals, so it cannot approve later calls`,
    );
  const problem = checkConfirmationCondition(grant.when);
  if (problem) throw new BadInputError(`standing.when is not valid CEL over args: ${problem}`);
  if (!argsWithinBound(grant.when, args))
    throw new BadInputError(`standing.when (${grant.when}) does not hold for the call being approved`);
}

/**
 * Standing approvals: created by an approval that asks for it, used by the gate for later calls of the same run and
 * tool whose args are within the bound, while calls and time remain. Each use names the approval on the stream
 * (`standing_approval_used`, the gate's side effect) and in the audit (`approved_by`).
 */
@Injectable()
export class StandingApprovals {
  constructor(
    private readonly store: StandingApprovalStore,
    private readonly audit: AuditTrail,
    private readonly dataSource: DataSource,
  ) {}

  /**
   * Records the grant with its chained `standing_approval.granted` event after `decisionEvents` (the approval's own),
   * in one transaction; a repeated grant is the first one.
   */
  async grant(
    row: ConfirmationRequest,
    grant: StandingGrant,
    decisionEvents: AuditEventInput[] = [],
  ): Promise<StandingApproval> {
    const made = await this.dataSource.transaction(async (m) => {
      const created = await this.create(row, grant, m);
      const granted = created
        ? [standingEvent('granted', created, { actor: row.respondedByUserId, callId: row.callId })]
        : [];
      await this.audit.record([...decisionEvents, ...granted], m);
      return created;
    });
    const existing = made ?? (await this.store.byConfirmation(row.id));
    if (!existing) throw new Error(`the standing approval of confirmation ${row.id} was neither created nor found`);
    return existing;
  }

  private create(row: ConfirmationRequest, grant: StandingGrant, m: EntityManager): Promise<StandingApproval | null> {
    const proposed = row.originalArgs ?? row.args;
    return this.store.create(
      {
        orgId: row.orgId,
        runId: row.runId,
        tool: row.tool,
        condition: grant.when,
        maxCalls: grant.maxCalls ?? DEFAULT_MAX_CALLS,
        minutes: grant.minutes ?? DEFAULT_MINUTES,
        confirmationId: row.id,
        callId: row.callId,
        argsDigest: actionDigest(row.tool, proposed),
        grantedByUserId: row.respondedByUserId,
        grantedByName: row.respondedByName ?? 'unknown',
        // The settled row's tier: an edit was re-tiered before it settled.
        tier: row.tier,
        policyVersion: row.policyVersion,
      },
      m,
    );
  }

  byConfirmation(confirmationId: string): Promise<StandingApproval | null> {
    return this.store.byConfirmation(confirmationId);
  }

  /**
   * Lets the call through when a standing approval of its run covers it, taking one use; null when none does (the
   * gate then asks a human). A grant covers only calls of the tier and policy version it was given under, in a tier
   * one approval satisfies; never a question (ask_human) nor a call a hook asked about (that question is about it).
   */
  async coverCall(
    ctx: HookContext,
    digest: string,
    confirmation: AgentHookSettings['confirmation'],
  ): Promise<HookResult | null> {
    if (!ctx.callId || ctx.metadata.confirmationAsks?.length || ctx.metadata.humanTask) return null;
    const policy = policyInForce(confirmation);
    const version = policyVersion(policy);
    const required = requirementOf(policy, ctx.toolArgs);
    if (required.approvals !== 1) return null;
    const fits = (s: StandingApproval) =>
      s.policyVersion === version && s.tier === required.tier && s.grantedByUserId !== null;
    // A call seen again (a resumed run) keeps the use it took; a call new in its turn has none yet.
    const previous = ctx.metadata.newInTurn ? null : await this.store.usedBy(ctx.runId, ctx.callId);
    if (previous)
      return previous.argsDigest === digest && fits(previous.approval)
        ? this.passed(ctx, previous.approval, digest, policy)
        : null;
    for (const candidate of await this.store.activeFor(ctx.runId, ctx.toolName)) {
      if (!fits(candidate) || !argsWithinBound(candidate.condition, ctx.toolArgs)) continue;
      const used = await this.use(candidate, ctx.runId, ctx.callId, digest);
      if (used) return this.passed(ctx, used, digest, policy);
    }
    return null;
  }

  /** Takes one use with its chained `standing_approval.used` event (one transaction). */
  private use(s: StandingApproval, runId: string, callId: string, digest: string): Promise<StandingApproval | null> {
    return this.dataSource.transaction(async (m) => {
      const taken = await this.store.use(s.id, runId, callId, digest, m);
      if (taken) await this.audit.record(standingEvent('used', taken, { actor: null, callId, argsDigest: digest }), m);
      return taken;
    });
  }

  private async passed(
    ctx: HookContext,
    s: StandingApproval,
    digest: string,
    policy: PolicyInForce,
  ): Promise<HookResult> {
    const by = `${s.grantedByName} (standing approval #${s.id})`;
    ctx.metadata.approvedBy = by;
    await ctx.emit('standing_approval_used', {
      call_id: ctx.callId,
      standing_approval_id: s.id,
      confirmation_id: s.confirmationId,
      approved_by: s.grantedByName,
      when: s.condition,
      uses: s.uses,
      max_calls: s.maxCalls,
      expires_at: s.expiresAt.toISOString(),
    });
    const grant = {
      kind: 'standing' as const,
      principal: s.grantedByUserId ?? '',
      digest,
      policyVersion: s.policyVersion ?? '',
      tier: s.tier,
    };
    return {
      allow: true,
      sideEffects: [`approved by ${by}`],
      approval: { confirmationId: s.confirmationId, argsDigest: digest, policy, grants: [grant] },
    };
  }
}
