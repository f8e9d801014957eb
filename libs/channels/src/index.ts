export * from './channel.js';
export * from './channels.module.js';
export * from './channels.service.js';
export type { ChannelView } from './channel-configs.js';
export * from './channel-registry.js';
export * from './notifications/notifications.service.js';
export { INBOX_CHANNEL_ID } from './inbox/inbox.channel.js';
