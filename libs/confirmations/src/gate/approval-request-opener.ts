import { Injectable, Logger } from '@nestjs/common';
import { SettledHere } from './settled-here.js';
import { ChannelsService, type Channel, type ChannelRecord } from '@warden/channels';
import { isDroppedDatabaseConnection } from '@warden/database';
import { askReasonOf, triggerOf, type AgentHookSettings, type HookContext, type HookResult } from '@warden/hooks';
import { batchKeyOf } from '../batch/batch-cards.js';
import { humanTaskSchema } from '../edits/human-task.js';
import { ConfirmationStore } from '../confirmation.store.js';
import type { ConfirmationRequest } from '../confirmation.types.js';
import { requestPolicy } from '../request-policy.js';
import { StandingApprovals } from '../standing/standing-approvals.js';
import { StandingCoversWaiting } from '../standing/standing-waiting.js';
import { block, message } from './gate-verdict.js';

export interface DeliveryTarget {
  record: ChannelRecord;
  impl: Channel;
}

/** The call's request: `created` when this attempt recorded it; `channel` when it was resolved for it here. */
export interface OpenedRequest {
  row: ConfirmationRequest;
  created: boolean;
  channel?: DeliveryTarget;
}

/**
 * Finds or records the approval request of one tool call (run + call id): an existing row is reused (a resumed run),
 * a standing approval may cover the call without one, otherwise the row is recorded for the channel its card goes
 * to. Anything that fails blocks the call, except a dropped database connection, which is thrown (no decision).
 */
@Injectable()
export class ApprovalRequestOpener {
  private readonly logger = new Logger(ApprovalRequestOpener.name);

  constructor(
    private readonly store: ConfirmationStore,
    private readonly channels: ChannelsService,
    private readonly standing: StandingApprovals,
    private readonly waiting: StandingCoversWaiting,
    private readonly settledHere: SettledHere,
  ) {}

  async open(
    ctx: HookContext,
    callId: string,
    policy: AgentHookSettings['confirmation'],
    digest: string,
  ): Promise<OpenedRequest | HookResult> {
    try {
      // A call resumed here right after its decision was taken here: the settled row is final, no read needed. A call
      // new in this turn has no request yet (were there one, the insert below would return it, created: false).
      if (!ctx.metadata.newInTurn) {
        const existing =
          this.settledHere.take(ctx.runId, callId) ?? (await this.store.findByRunCall(ctx.runId, callId));
        if (existing) return { row: existing, created: false };
      }
      const standing = await this.standing.coverCall(ctx, digest, policy);
      if (standing) return standing;
      const target = await this.channels
        .resolveForDelivery(ctx.orgId, policy.channelId)
        .catch((err: unknown) => err as Error);
      if (target instanceof Error) {
        if (isDroppedDatabaseConnection(target)) throw target;
        return block(`no channel is reachable for the approval card: ${target.message}`);
      }
      const opened = await this.record(ctx, callId, policy, digest, target);
      // A grant of this run may have committed since coverCall looked, and looked for waiting requests before this one
      // committed: looked at again now, so one of the two sees the other (StandingCoversWaiting.coverRecorded).
      const covered = opened.created ? await this.waiting.coverRecorded(opened.row) : null;
      return covered ? { row: covered, created: false } : { ...opened, channel: target };
    } catch (err) {
      if (isDroppedDatabaseConnection(err)) throw err;
      this.logger.error(`run ${ctx.runId} call ${callId}: approval request not recorded: ${message(err)}`);
      return block(`the approval request could not be recorded: ${message(err)}`);
    }
  }

  private record(
    ctx: HookContext,
    callId: string,
    policy: AgentHookSettings['confirmation'],
    digest: string,
    target: DeliveryTarget,
  ) {
    const fixed = requestPolicy(
      policy,
      ctx.toolArgs,
      ctx.metadata,
      Boolean(target.impl.approverAllowList(target.record)),
    );
    return this.store.insertOrGet({
      ...fixed,
      orgId: ctx.orgId,
      agentId: ctx.metadata.agent?.id ?? ctx.agentId,
      agentName: ctx.metadata.agent?.name ?? null,
      runId: ctx.runId,
      callId,
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
      argsSchema: ctx.metadata.humanTask
        ? humanTaskSchema(ctx.metadata.argsSchema, ctx.toolArgs)
        : (ctx.metadata.argsSchema ?? null),
      askReason: askReasonOf(ctx.metadata),
      trigger: triggerOf(ctx.metadata),
      memberMessage: ctx.metadata.memberMessage ?? null,
      remindAfterS: policy.remindAfterS,
      escalateAfterS: policy.escalateAfterS,
      escalateTo: policy.escalateTo,
      // Every channel groups a turn's calls: chat channels with batch cards on one card, the inbox as one group.
      batch: batchKeyOf(ctx.runId, ctx.metadata.turnCallIds, callId),
    });
  }
}
