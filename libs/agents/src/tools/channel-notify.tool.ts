import { Injectable } from '@nestjs/common';
import { ChannelsService } from '@warden/channels';
import { BuiltinTool, type ToolRunContext } from './builtin-tool.js';

const MAX_TEXT = 4_000;

/**
 * `channel_notify`: an agent sends a message (markdown allowed) through one of the org's channels — Feishu, Slack,
 * WeCom or the built-in inbox (`GET /api/notifications`). It is a write action, so the read-only guard and the
 * agent's hooks apply to it like to any connector write.
 */
@Injectable()
export class ChannelNotifyTool extends BuiltinTool {
  readonly name = 'channel_notify';
  readonly description =
    'Send a notification (markdown allowed) to a chat channel of the organisation; ' +
    'without channel_id the org default (or the inbox).';
  readonly parameters = {
    type: 'object',
    properties: {
      channel_id: { type: 'string', description: 'channel id, or "inbox"; omit for the org default' },
      text: { type: 'string', description: 'the message (markdown)' },
    },
    required: ['text'],
  };
  readonly write = true;

  constructor(private readonly channels: ChannelsService) {
    super();
  }

  async execute(args: Record<string, unknown>, ctx: ToolRunContext): Promise<string> {
    const { text, channel_id: channelId } = args;
    if (typeof text !== 'string' || text.trim() === '') throw new Error('channel_notify needs a non-empty text');
    if (text.length > MAX_TEXT) throw new Error(`text is ${text.length} characters; at most ${MAX_TEXT} allowed`);
    if (channelId !== undefined && typeof channelId !== 'string') throw new Error('channel_id must be a string');
    const { record, impl } = await this.channels.resolveForDelivery(ctx.orgId, channelId);
    const sent = await impl.sendNotification(record, text, {
      agentId: ctx.agentId,
      runId: ctx.runId,
      userId: ctx.userId,
    });
    const messageNote = sent.platformMessageId ? ` (message ${sent.platformMessageId})` : '';
    return `Notification sent to ${record.type} channel "${record.name}"${messageNote}.`;
  }
}
