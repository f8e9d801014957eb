import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CallbackEvents } from './callback-events.js';
import { ChannelEntity, ChannelEventEntity } from './channel.entity.js';
import { ChannelCallbackController } from './channel-callback.controller.js';
import { ChannelConfigs } from './channel-configs.js';
import { ChannelRegistry } from './channel-registry.js';
import { ChannelsController } from './channels.controller.js';
import { ChannelsService } from './channels.service.js';
import { FeishuChannel } from './feishu/feishu.channel.js';
import { InboxChannel } from './inbox/inbox.channel.js';
import { IdentityLinksController } from './identity-links/identity-links.controller.js';
import { IdentityLinksService } from './identity-links/identity-links.service.js';
import { NotificationEntity } from './notifications/notification.entity.js';
import { NotificationsController } from './notifications/notifications.controller.js';
import { NotificationsService } from './notifications/notifications.service.js';
import { SlackChannel } from './slack/slack.channel.js';
import { WecomChannel } from './wecom/wecom.channel.js';

@Module({
  imports: [TypeOrmModule.forFeature([ChannelEntity, ChannelEventEntity, NotificationEntity])],
  controllers: [ChannelsController, ChannelCallbackController, NotificationsController, IdentityLinksController],
  providers: [
    ChannelsService,
    CallbackEvents,
    ChannelConfigs,
    IdentityLinksService,
    ChannelRegistry,
    NotificationsService,
    FeishuChannel,
    SlackChannel,
    WecomChannel,
    InboxChannel,
  ],
  exports: [ChannelsService, ChannelRegistry, NotificationsService],
})
export class ChannelsModule {}
