import { Injectable } from '@nestjs/common';
import { isUuid } from '@warden/common';
import {
  Channel,
  type ApprovalCard,
  type CallbackRequest,
  type ChannelRecord,
  type DecidedCard,
  type NotificationContext,
  type ParsedCallback,
  type SentCard,
} from '../channel.js';
import { NotificationsService } from '../notifications/notifications.service.js';
import { checkConfig } from '../shared/config-rules.js';
import { rejected } from '../shared/replies.js';

/** The id of the built-in inbox when an org has no channel row for it. */
export const INBOX_CHANNEL_ID = 'inbox';

/**
 * The built-in inbox: pending approvals are the confirmations list itself (nothing to deliver or update);
 * notifications are rows listed by GET /api/notifications.
 */
@Injectable()
export class InboxChannel extends Channel {
  readonly type = 'inbox' as const;
  readonly secretKeys: readonly string[] = [];

  constructor(private readonly notifications: NotificationsService) {
    super();
  }

  validateConfig(config: Record<string, unknown>): string[] {
    return checkConfig([], config);
  }

  /** The pending confirmation is the inbox's card: nothing to send or update. */
  sendApprovalCard(_channel: ChannelRecord, _card: ApprovalCard): Promise<SentCard> {
    return Promise.resolve({});
  }

  markDecided(_channel: ChannelRecord, _sent: SentCard, _decided: DecidedCard): Promise<void> {
    return Promise.resolve();
  }

  parseCallback(_channel: ChannelRecord, _req: CallbackRequest): Promise<ParsedCallback> {
    return Promise.resolve(
      rejected(404, 'the inbox takes decisions through POST /api/confirmations/:id/decision, not callbacks'),
    );
  }

  async sendNotification(channel: ChannelRecord, text: string, context: NotificationContext = {}): Promise<SentCard> {
    const row = await this.notifications.record({
      orgId: channel.orgId,
      channelId: isUuid(channel.id) ? channel.id : null,
      agentId: context.agentId,
      runId: context.runId,
      userId: context.userId,
      text,
    });
    return { platformMessageId: row.id };
  }
}
