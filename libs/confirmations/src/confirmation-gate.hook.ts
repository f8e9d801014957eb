import { Logger } from '@nestjs/common';
import { UsersService } from '@warden/auth';
import { ChannelsService, type Channel, type ChannelRecord } from '@warden/channels';
import { Hook, isRunInterruption, PreToolUseHook, type AgentHookSettings, type HookContext, type HookResult } from '@warden/hooks';
import { ConfirmationService } from './confirmation.service.js';
import { ConfirmationStore } from './confirmation.store.js';
import { ConfirmationStatus, type ConfirmationRequest } from './confirmation.types.js';
import { ConfirmationWaiter, WaiterClosedError } from './confirmation-waiter.js';

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
const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * Stops a tool call until a human approves it (DESIGN.md "Human approval"). Attached to every agent.
 * Fails closed: no channel, an undeliverable card, a database error or a cancelled run all block the call, and a
 * row that was created is expired with the cause as its reason, so no later click can approve it.
 * Re-entered for the same run + call (a run resumed after a restart), it reuses the existing row: a decided row
 * gives its verdict at once, a pending one is waited on with its original deadline.
 */
@Hook({
  name: 'confirmation_gate',
  priority: 10,
  description: 'Asks a human to approve the tool call (chat card or inbox) and blocks it unless approved before the deadline',
  autoAttach: true,
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
  ) {
    super();
  }

  override shouldTrigger(ctx: HookContext): boolean {
    return Boolean(ctx.metadata.requiresConfirmation || ctx.metadata.agent?.requireConfirmationForAll);
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

    let row: ConfirmationRequest;
    let created = false;
    let channel: { record: ChannelRecord; impl: Channel } | undefined;
    try {
      const existing = await this.store.findByRunCall(ctx.runId, ctx.callId);
      if (existing) {
        row = existing;
      } else {
        const target = await this.channels.resolveForDelivery(ctx.orgId, policy.channelId).catch((err: unknown) => err as Error);
        if (target instanceof Error) return block(`no channel is reachable for the approval card: ${target.message}`);
        channel = target;
        ({ row, created } = await this.store.insertOrGet({
          orgId: ctx.orgId,
          agentId: ctx.metadata.agent?.id ?? ctx.agentId ?? null,
          agentName: ctx.metadata.agent?.name ?? null,
          runId: ctx.runId,
          callId: ctx.callId,
          tool: ctx.toolName,
          args: ctx.toolArgs,
          requestedBy: ctx.userId || null,
          approverScope: policy.approverScope,
          agentOwnerId: ctx.metadata.agent?.ownerUserId ?? null,
          forbidSelfApproval: policy.forbidSelfApproval,
          channelId: target.record.id,
          channelType: target.record.type,
          timeoutS: policy.timeoutS,
        }));
      }
    } catch (err) {
      this.logger.error(`run ${ctx.runId} call ${ctx.callId}: approval request not recorded: ${message(err)}`);
      return block(`the approval request could not be recorded: ${message(err)}`);
    }

    try {
      if (created) {
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
      const final = row.status === ConfirmationStatus.Pending ? await this.waiter.wait(row.id, row.expiresAt, ctx.signal) : row;
      await ctx.emit('confirmation_resolved', {
        call_id: ctx.callId,
        confirmation_id: final.id,
        status: final.status,
        responded_by: final.respondedByName,
      });
      return this.verdict(final);
    } catch (err) {
      // Shutdown or lost lease: this driver stops, the request stays pending for the run's next driver.
      if (err instanceof WaiterClosedError || isRunInterruption(err) || isRunInterruption(ctx.signal?.reason)) return block(message(err));
      this.logger.error(`run ${ctx.runId} call ${ctx.callId}: approval gate failed: ${message(err)}`);
      await this.confirmations.expire(row.id, 'system', `approval gate failed: ${message(err)}`).catch(() => undefined);
      return block(`the approval could not be completed: ${message(err)}`);
    }
  }

  /** Sends the card; on failure closes the row (so nothing can approve it later) and returns the block. */
  private async deliverCard(
    ctx: HookContext,
    row: ConfirmationRequest,
    resolved?: { record: ChannelRecord; impl: Channel },
  ): Promise<HookResult | undefined> {
    try {
      const channel = resolved ?? (await this.channels.resolveForDelivery(row.orgId, row.channelId ?? undefined));
      const requester = row.requestedBy ? await this.users.memberById(row.orgId, row.requestedBy).catch(() => null) : null;
      const sent = await channel.impl.sendApprovalCard(channel.record, {
        confirmationId: row.id,
        agentName: row.agentName ?? 'agent',
        tool: row.tool,
        args: row.args,
        requestedBy: { userId: row.requestedBy ?? '', name: requester ? requester.name ?? requester.sub : null },
        expiresAt: row.expiresAt,
        approverScope: row.approverScope,
      });
      const delivered = await this.store.recordDelivery(row.id, sent);
      // Decided before we could store where the card went: update the card now.
      if (delivered && delivered.status !== ConfirmationStatus.Pending) void this.confirmations.markCardDecided(delivered);
      return undefined;
    } catch (err) {
      const reason = `card delivery failed: ${message(err)}`;
      this.logger.warn(`confirmation ${row.id}: ${reason}`);
      const closed = await this.confirmations.expire(row.id, 'system', reason);
      if (closed) {
        await ctx
          .emit('confirmation_resolved', { call_id: ctx.callId, confirmation_id: row.id, status: closed.status, responded_by: 'system' })
          .catch(() => undefined);
      }
      return block(`the approval card could not be delivered (${message(err)}); the call was not approved`);
    }
  }

  private verdict(row: ConfirmationRequest): HookResult {
    switch (row.status) {
      case ConfirmationStatus.Approved:
        return { allow: true, sideEffects: [`approved by ${row.respondedByName}`] };
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
