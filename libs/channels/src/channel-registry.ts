import { Injectable } from '@nestjs/common';
import { BadInputError } from '@warden/common';
import type { Channel, ChannelType } from './channel.js';
import { FeishuChannel } from './feishu/feishu.channel.js';
import { InboxChannel } from './inbox/inbox.channel.js';
import { SlackChannel } from './slack/slack.channel.js';
import { WecomChannel } from './wecom/wecom.channel.js';

export const CHANNEL_TYPES: readonly ChannelType[] = ['feishu', 'slack', 'wecom', 'inbox'];

/** The implementation of each channel type. */
@Injectable()
export class ChannelRegistry {
  private readonly byType: Map<ChannelType, Channel>;

  constructor(feishu: FeishuChannel, slack: SlackChannel, wecom: WecomChannel, inbox: InboxChannel) {
    this.byType = new Map<ChannelType, Channel>([feishu, slack, wecom, inbox].map((c) => [c.type, c]));
  }

  get(type: ChannelType): Channel {
    const impl = this.byType.get(type);
    if (!impl) throw new BadInputError(`unknown channel type "${type}" (expected one of ${CHANNEL_TYPES.join(', ')})`);
    return impl;
  }
}
