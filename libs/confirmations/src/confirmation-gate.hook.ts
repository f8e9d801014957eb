import { Logger } from '@nestjs/common';
import { UsersService } from '@warden/auth';
import { AppConfig, inSpan } from '@warden/common';
import { isDroppedDatabaseConnection } from '@warden/database';
import { ChannelsService, type Channel, type ChannelRecord } from '@warden/channels';
import { actionDigest, ARGS_CHANGED_AFTER_APPROVAL, askReasonOf, CONFIRMATION_GATE, Hook, isRunInterruption, PreToolUseHook, type AgentHookSettings, type HookContext, type HookResult } from '@warden/hooks';
import { approvalCardOf } from './approval-card.js';
import { ConfirmationService } from './confirmation.service.js';
import { ConfirmationStore } from './confirmation.store.js';
import { ConfirmationStatus, type ConfirmationRequest } from './confirmation.types.js';
import { ConfirmationWaiter, WaiterClosedError } from './confirmation-waiter.js';
import { requestPolicy } from './request-policy.js';
import { editNote, rowCoversCall } from './edits/approval-edit.js';
import { humanTaskSchema, isHumanTask } from './edits/human-task.js';
import { StandingApprovals } from './standing/standing-approvals.js';
import { BatchCards, batchKeyOf } from './batch/batch-cards.js';

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

const block = (error: string, sideEffects: string[] = []): HookResult => ({ allow: false, error, sideEffects });
/** The action a row's approval covers (rows from before digests existed: their stored tool + args). */
const boundDigest = (row: ConfirmationRequest): string => row.argsDigest ?? actionDigest(row.tool, row.args);
const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The channel refused or failed to send the card (whatever the message says, not our database dropping). */
class CardNotSentError extends Error {
  constructor(cause: unknown) {
    super(message(cause), { cause });
  }
}

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
 */
@Hook({
  name: CONFIRMATION_GATE,
  priority: 10,
  description: 'Asks a human to approve the tool call (chat card or inbox) and blocks it unless approved before the deadline',
  autoAttach: true,
  runsLast: true,
  timeoutMs: GATE_HOOK_TIMEOUT_MS,
  onError: 'block',
})
export class ConfirmationGateHook extends PreToolUseHook {
  private readonly logger = new Logger(ConfirmationGateHook.name);

  constructor(
    private readonly store: ConfirmationStore,
    private readonly waiter: ConfirmationWaiter,
    private readonly confirmations: ConfirmationService,
    private readonly channels: ChannelsService,
    private readonly users: UsersService,
    private readonly config: AppConfig,
    private readonly standing: StandingApprovals,
    private readonly batches: BatchCards,
  ) {
    super();
  }

  override shouldTrigger(ctx: HookContext): boolean {
    const { confirmationRequiredFor, requiresConfirmation, agent } = ctx.metadata;
    // On the args as the hooks before this one left them: the action that will run, not the model's proposal.
    const needed = confirmationRequiredFor ? confirmationRequiredFor(ctx.toolArgs) : requiresConfirmation;
    // A hook before this one asked for a human (`ask`): handled as if the action required confirmation.
    return Boolean(needed || agent?.requireConfirmationForAll || ctx.metadata.confirmationAsks?.length);
  }

  async execute(ctx: HookContext): Promise<HookResult> {
    const policy = { ...DEFAULT_POLICY, ...(ctx.metadata.agent?.confirmation ?? {}) };
    if (ctx.metadata.dryRun) {
      return {
        allow: true,
        wouldRequireConfirmation: true,
        sideEffects: [`would wait up to ${policy.timeoutS} s for approval (${policy.approverScope})`],
      };
    }
    if (!ctx.callId) return block('the tool call has no call id, so its approval cannot be recorded');
    const digest = actionDigest(ctx.toolName, ctx.toolArgs);

    let row: ConfirmationRequest;
    let created = false;
    let channel: { record: ChannelRecord; impl: Channel } | undefined;
    try {
      const existing = await this.store.findByRunCall(ctx.runId, ctx.callId);
      if (existing) {
        row = existing;
      } else {
        const standing = await this.standing.coverCall(ctx, digest);
        if (standing) return standing;
        const target = await this.channels.resolveForDelivery(ctx.orgId, policy.channelId).catch((err: unknown) => err as Error);
        if (target instanceof Error) {
          if (isDroppedDatabaseConnection(target)) throw target;
          return block(`no channel is reachable for the approval card: ${target.message}`);
        }
        channel = target;
        const fixed = requestPolicy(policy, ctx.toolArgs, ctx.metadata, Boolean(target.impl.approverAllowList(target.record)));
        ({ row, created } = await this.store.insertOrGet({
          ...fixed,
          orgId: ctx.orgId,
          agentId: ctx.metadata.agent?.id ?? ctx.agentId ?? null,
          agentName: ctx.metadata.agent?.name ?? null,
          runId: ctx.runId,
          callId: ctx.callId,
          tool: ctx.toolName,
          args: ctx.toolArgs,
          argsDigest: digest,
          requestedBy: ctx.userId || null,
          approverScope: policy.approverScope,
          agentOwnerId: ctx.metadata.agent?.ownerUserId ?? null,
          forbidSelfApproval: policy.forbidSelfApproval,
          channelId: target.record.id,
          channelType: target.record.type,
          timeoutS: policy.timeoutS,
          argsSchema: ctx.metadata.humanTask ? humanTaskSchema(ctx.metadata.argsSchema, ctx.toolArgs) : ctx.metadata.argsSchema ?? null,
          askReason: askReasonOf(ctx.metadata),
          remindAfterS: policy.remindAfterS,
          escalateAfterS: policy.escalateAfterS,
          escalateTo: policy.escalateTo,
          batch: target.impl.sendBatchCard ? batchKeyOf(ctx.runId, ctx.metadata.turnCallIds, ctx.callId) : null,
        }));
      }
    } catch (err) {
      if (isDroppedDatabaseConnection(err)) throw err;
      this.logger.error(`run ${ctx.runId} call ${ctx.callId}: approval request not recorded: ${message(err)}`);
      return block(`the approval request could not be recorded: ${message(err)}`);
    }

    if (!rowCoversCall(row, digest)) return this.unbound(ctx, row);
    try {
      // A new row, or one whose card never went out: the previous attempt died before announcing it, or right after.
      if (created || (row.status === ConfirmationStatus.Pending && !row.sentCard)) {
        await ctx.emit('confirmation_pending', {
          call_id: ctx.callId,
          confirmation_id: row.id,
          tool: row.tool,
          args: row.args,
          expires_at: row.expiresAt.toISOString(),
          channel: { id: row.channelId, type: row.channelType, name: channel?.record.name ?? null },
        });
      }
      // A new row, or one whose card never went out (the previous attempt died before sending it).
      if (row.status === ConfirmationStatus.Pending && !row.sentCard) {
        const undelivered = await this.deliverCard(ctx, row, channel);
        if (undelivered) return undelivered;
      }
      const final = row.status === ConfirmationStatus.Pending ? await this.waitTraced(ctx, row) : row;
      await ctx.emit('confirmation_resolved', {
        call_id: ctx.callId,
        confirmation_id: final.id,
        status: final.status,
        responded_by: final.respondedByName,
        ...(final.originalArgs ? { args: final.args, original_args: final.originalArgs, edited_by: final.editedByName } : {}),
      });
      // The row may have been changed while it waited: an approval counts only for the action it names.
      if (final.status === ConfirmationStatus.Approved && !rowCoversCall(final, digest)) return this.unbound(ctx, final);
      return this.verdict(final, ctx.metadata);
    } catch (err) {
      // Shutdown or lost lease: this driver stops, the request stays pending for the run's next driver.
      if (err instanceof WaiterClosedError || isRunInterruption(err) || isRunInterruption(ctx.signal?.reason)) return block(message(err));
      if (isDroppedDatabaseConnection(err)) throw err;
      this.logger.error(`run ${ctx.runId} call ${ctx.callId}: approval gate failed: ${message(err)}`);
      await this.confirmations.expire(row.id, 'system', `approval gate failed: ${message(err)}`).catch(() => undefined);
      return block(`the approval could not be completed: ${message(err)}`);
    }
  }

  /** Waits for the decision inside an `approval wait` span (who decided, how long it took). */
  private waitTraced(ctx: HookContext, row: ConfirmationRequest): Promise<ConfirmationRequest> {
    return inSpan('approval wait', { 'warden.confirmation_id': row.id, 'warden.call_id': ctx.callId ?? '', 'warden.tool': row.tool }, async (span) => {
      const started = Date.now();
      const final = await this.waiter.wait(row.id, row.expiresAt, ctx.signal);
      span?.setAttributes({ 'warden.approval.status': final.status, 'warden.approval.decided_by': final.respondedByName ?? '', 'warden.approval.wait_ms': Date.now() - started });
      return final;
    });
  }

  /** Sends the card; on failure closes the row (so nothing can approve it later) and returns the block. */
  private async deliverCard(
    ctx: HookContext,
    row: ConfirmationRequest,
    resolved?: { record: ChannelRecord; impl: Channel },
  ): Promise<HookResult | undefined> {
    let sent: Awaited<ReturnType<Channel['sendApprovalCard']>>;
    try {
      const channel = resolved ?? (await this.channels.resolveForDelivery(row.orgId, row.channelId ?? undefined));
      if (row.batchKey && channel.impl.sendBatchCard) { await this.batches.deliver(row, channel); return; }
      const card = await approvalCardOf(row, this.users, this.config.publicUrl);
      sent = await channel.impl.sendApprovalCard(channel.record, card).catch((err: unknown) => Promise.reject(new CardNotSentError(err)));
    } catch (err) {
      // Our own database dropped (looking up the channel or the card's names): no decision, the next attempt resends.
      if (!(err instanceof CardNotSentError) && isDroppedDatabaseConnection(err)) throw err;
      const cause = err instanceof CardNotSentError ? err.cause : err;
      const reason = `card delivery failed: ${message(cause)}`;
      this.logger.warn(`confirmation ${row.id}: ${reason}`);
      const closed = await this.confirmations.expire(row.id, 'system', reason);
      // The turn's other calls wait on the same card: none of them can be approved through it now.
      if (row.batchKey) await this.batches.expireBatch(row.batchKey, (id) => this.confirmations.expire(id, 'system', reason)).catch(() => undefined);
      if (closed) {
        await ctx
          .emit('confirmation_resolved', { call_id: ctx.callId, confirmation_id: row.id, status: closed.status, responded_by: 'system' })
          .catch(() => undefined);
      }
      return block(`the approval card could not be delivered (${message(cause)}); the call was not approved`);
    }
    const delivered = await this.store.recordDelivery(row.id, sent);
    // Decided before we could store where the card went: update the card now.
    if (delivered && delivered.status !== ConfirmationStatus.Pending) void this.confirmations.markCardDecided(delivered);
    return undefined;
  }

  /** The row does not cover this tool + args: block (a pending row is expired so no click can approve it). */
  private async unbound(ctx: HookContext, row: ConfirmationRequest): Promise<HookResult> {
    this.logger.warn(`run ${ctx.runId} call ${ctx.callId}: confirmation ${row.id} does not cover the args to be sent; blocked`);
    if (row.status === ConfirmationStatus.Pending) {
      await this.confirmations.expire(row.id, 'system', ARGS_CHANGED_AFTER_APPROVAL).catch(() => undefined);
    }
    return block(ARGS_CHANGED_AFTER_APPROVAL);
  }

  private verdict(row: ConfirmationRequest, metadata: HookContext['metadata']): HookResult {
    switch (row.status) {
      case ConfirmationStatus.Approved: {
        const approval = { confirmationId: row.id, argsDigest: boundDigest(row) };
        metadata.approvedBy = `${row.respondedByName} (confirmation ${row.id})`;
        if (!row.originalArgs) return { allow: true, sideEffects: [`approved by ${row.respondedByName}`], approval };
        // A question: the answer is the change, and the observation itself (no note).
        if (isHumanTask(row)) return { allow: true, modifiedArgs: structuredClone(row.args), sideEffects: [`answered by ${row.respondedByName}`], approval };
        // Approved with changes: the call runs with exactly the approver's args, and the model is told so.
        return { allow: true, modifiedArgs: structuredClone(row.args), sideEffects: [`approved with changes by ${row.editedByName ?? row.respondedByName}`], approval: { ...approval, note: editNote(row) } };
      }
      case ConfirmationStatus.Rejected:
        return block(`rejected by ${row.respondedByName}${row.reason ? `: ${row.reason}` : ''}`);
      case ConfirmationStatus.Expired: {
        if (row.respondedByName === 'timeout') {
          const seconds = Math.round((row.expiresAt.getTime() - row.createdAt.getTime()) / 1000);
          return block(`expired after ${seconds} s`);
        }
        return block(`expired: ${row.reason ?? 'closed without a decision'}`);
      }
      default:
        return block(`confirmation is still ${row.status}`);
    }
  }
}
