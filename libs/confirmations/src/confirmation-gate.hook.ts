import { Logger } from '@nestjs/common';
import { inSpan, recordSpan } from '@warden/common';
import { isDroppedDatabaseConnection } from '@warden/database';
import {
  actionDigest,
  ARGS_CHANGED_AFTER_APPROVAL,
  CONFIRMATION_GATE,
  Hook,
  isRunInterruption,
  PreToolUseHook,
  type AgentHookSettings,
  type HookContext,
  type HookResult,
} from '@warden/hooks';
import { policyInForce } from '@warden/policy';
import { dryRunWords } from './gate/gate-dry-run.js';
import { ConfirmationDecisionService } from './confirmation-decision.service.js';
import { ConfirmationStatus, type ConfirmationRequest } from './confirmation.types.js';
import { ConfirmationWaiter, WaiterClosedError } from './confirmation-waiter.js';
import { rowCoversCall } from './edits/approval-edit.js';
import { ApprovalCardDelivery } from './gate/approval-card-delivery.js';
import { ApprovalRequestOpener, type DeliveryTarget } from './gate/approval-request-opener.js';
import { block, message, verdictOf } from './gate/gate-verdict.js';

export const DEFAULT_CONFIRMATION_TIMEOUT_S = 120;
/**
 * The registry's timeout for this hook only bounds a runaway wait: the gate enforces each request's own
 * deadline (`confirmation.timeout_s`) and expires the row itself. Seven days stays below setTimeout's limit.
 */
const GATE_HOOK_TIMEOUT_MS = 7 * 24 * 3600 * 1000;

const DEFAULT_POLICY: AgentHookSettings['confirmation'] = {
  timeoutS: DEFAULT_CONFIRMATION_TIMEOUT_S,
  approverScope: 'initiator',
  forbidSelfApproval: false,
};

/**
 * Stops a tool call until a human approves it (DESIGN.md "Human approval"). Attached to every agent.
 * Fails closed: no channel, an undeliverable card, a database error or a cancelled run all block the call, and a
 * row that was created is expired with the cause as its reason, so no later click can approve it. A dropped database
 * connection is no decision: it is thrown (the run is left for recovery, whose gate reuses the row).
 * Re-entered for the same run + call (a run resumed after a restart), it reuses the existing row: a decided row
 * gives its verdict at once, a pending one is waited on with its original deadline — but only while the row covers
 * exactly this tool + args (digest); otherwise the call is blocked and a pending row expired.
 * Runs last among PreToolUse hooks (`runsLast`) and decides on the args it receives, so what the approver sees is
 * what will be sent; its `approval` carries the digest the runtime re-checks right before sending.
 * In a run that can park (`metadata.canPark`), an announced request is not waited on here: the gate returns `park`,
 * and the run resumes at the gate (`metadata.resumedAtGate`, only this hook runs) once it is decided or overdue.
 */
@Hook({
  name: CONFIRMATION_GATE,
  priority: 10,
  description:
    'Asks a human to approve the tool call (chat card or inbox) and blocks it unless approved before the deadline',
  autoAttach: true,
  runsLast: true,
  timeoutMs: GATE_HOOK_TIMEOUT_MS,
  onError: 'block',
})
export class ConfirmationGateHook extends PreToolUseHook {
  private readonly logger = new Logger(ConfirmationGateHook.name);

  constructor(
    private readonly requests: ApprovalRequestOpener,
    private readonly delivery: ApprovalCardDelivery,
    private readonly waiter: ConfirmationWaiter,
    private readonly decisions: ConfirmationDecisionService,
  ) {
    super();
  }

  override shouldTrigger(ctx: HookContext): boolean {
    const { confirmationRequiredFor, requiresConfirmation, agent } = ctx.metadata;
    // On the args as the hooks before this one left them: the action that will run, not the model's proposal.
    const needed = confirmationRequiredFor ? confirmationRequiredFor(ctx.toolArgs) : requiresConfirmation;
    // A hook before this one asked for a human (`ask`): handled as if the action required confirmation. A call
    // parked here resumes here whatever the trigger says now: its request exists and decides it.
    return (
      !!needed ||
      !!agent?.requireConfirmationForAll ||
      !!ctx.metadata.confirmationAsks?.length ||
      !!ctx.metadata.resumedAtGate
    );
  }

  async execute(ctx: HookContext): Promise<HookResult> {
    const policy = { ...DEFAULT_POLICY, ...(ctx.metadata.agent?.confirmation ?? {}) };
    if (ctx.metadata.dryRun)
      return {
        allow: true,
        wouldRequireConfirmation: true,
        sideEffects: [dryRunWords(policy, ctx.metadata, ctx.toolArgs)],
      };
    if (!ctx.callId) return block('the tool call has no call id, so its approval cannot be recorded');
    const digest = actionDigest(ctx.toolName, ctx.toolArgs);
    const opened = await this.requests.open(ctx, ctx.callId, policy, digest);
    if (!('row' in opened)) return opened;
    const { row, created, channel } = opened;

    if (!rowCoversCall(row, digest)) return this.unbound(ctx, row);
    try {
      const undelivered = await this.announce(ctx, row, created, channel);
      if (undelivered) return undelivered;
      // Announced and still open: a run that can park waits without a process (the decision or the deadline
      // resumes it here); past its deadline the wait below expires it at once.
      if (ctx.metadata.canPark && row.status === ConfirmationStatus.Pending && row.expiresAt.getTime() > Date.now())
        return { park: { confirmationId: row.id, expiresAt: row.expiresAt.toISOString() } };
      const final = row.status === ConfirmationStatus.Pending ? await this.waitTraced(ctx, row) : row;
      if (ctx.metadata.resumedAtGate) traceParkedWait(ctx, final);
      await ctx.emit(
        'confirmation_resolved',
        {
          call_id: ctx.callId,
          confirmation_id: final.id,
          status: final.status,
          responded_by: final.respondedByName,
          ...(final.originalArgs
            ? { args: final.args, original_args: final.originalArgs, edited_by: final.editedByName }
            : {}),
        },
        'running', // decided: the call no longer waits for a person
      );
      // The row may have been changed while it waited: an approval counts only for the action it names.
      if (final.status === ConfirmationStatus.Approved && !rowCoversCall(final, digest))
        return await this.unbound(ctx, final);
      return verdictOf(final, ctx.metadata, policyInForce(policy));
    } catch (err) {
      // Shutdown or lost lease: this driver stops, the request stays pending for the run's next driver.
      if (err instanceof WaiterClosedError || isRunInterruption(err) || isRunInterruption(ctx.signal.reason))
        return { suspend: message(err) };
      if (isDroppedDatabaseConnection(err)) throw err;
      this.logger.error(`run ${ctx.runId} call ${ctx.callId}: approval gate failed: ${message(err)}`);
      await this.decisions.expire(row.id, 'system', `approval gate failed: ${message(err)}`).catch(() => undefined);
      return block(`the approval could not be completed: ${message(err)}`);
    }
  }

  /** Announces the request and sends its card if that has not happened yet; the block if the card could not go out. */
  private async announce(
    ctx: HookContext,
    row: ConfirmationRequest,
    created: boolean,
    channel?: DeliveryTarget,
  ): Promise<HookResult | undefined> {
    // A new row, or one whose card never went out: the previous attempt died before announcing it, or right after.
    if (created || (row.status === ConfirmationStatus.Pending && !row.sentCard)) {
      await ctx.emit(
        'confirmation_pending',
        {
          call_id: ctx.callId,
          confirmation_id: row.id,
          tool: row.tool,
          args: row.args,
          expires_at: row.expiresAt.toISOString(),
          channel: { id: row.channelId, type: row.channelType, name: channel?.record.name ?? null },
        },
        'waiting', // the call waits for a person
      );
    }
    // A new row, or one whose card never went out (the previous attempt died before sending it).
    if (row.status === ConfirmationStatus.Pending && !row.sentCard) return this.delivery.deliver(ctx, row, channel);
    return undefined;
  }

  /** Waits for the decision inside an `approval wait` span (who decided, how long it took). */
  private waitTraced(ctx: HookContext, row: ConfirmationRequest): Promise<ConfirmationRequest> {
    return inSpan(
      'approval wait',
      { 'warden.confirmation_id': row.id, 'warden.call_id': ctx.callId ?? '', 'warden.tool': row.tool },
      async (span) => {
        const started = Date.now();
        const final = await this.waiter.wait(row.id, row.expiresAt, ctx.signal);
        span?.setAttributes({
          'warden.approval.status': final.status,
          'warden.approval.decided_by': final.respondedByName ?? '',
          'warden.approval.wait_ms': Date.now() - started,
        });
        return final;
      },
    );
  }

  /** The row does not cover this tool + args: block (a pending row is expired so no click can approve it). */
  private async unbound(ctx: HookContext, row: ConfirmationRequest): Promise<HookResult> {
    this.logger.warn(
      `run ${ctx.runId} call ${ctx.callId}: confirmation ${row.id} does not cover the args to be sent; blocked`,
    );
    if (row.status === ConfirmationStatus.Pending) {
      await this.decisions.expire(row.id, 'system', ARGS_CHANGED_AFTER_APPROVAL).catch(() => undefined);
    }
    return block(ARGS_CHANGED_AFTER_APPROVAL);
  }
}

/** The `approval wait` span of a call that waited parked (no process waited): from the request to its decision. */
function traceParkedWait(ctx: HookContext, row: ConfirmationRequest): void {
  const waitedMs = (row.respondedAt ?? new Date()).getTime() - row.createdAt.getTime();
  recordSpan(
    'approval wait',
    {
      'warden.confirmation_id': row.id,
      'warden.call_id': ctx.callId ?? '',
      'warden.tool': row.tool,
      'warden.approval.status': row.status,
      'warden.approval.decided_by': row.respondedByName ?? '',
      'warden.approval.wait_ms': waitedMs,
      'warden.approval.parked': true,
    },
    waitedMs,
  );
}
