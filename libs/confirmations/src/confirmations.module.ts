import { Module } from '@nestjs/common';
import { ChannelsModule } from '@warden/channels';
import { ConfirmationGateHook } from './confirmation-gate.hook.js';
import { ConfirmationInboxStream } from './confirmation-inbox-stream.js';
import { ConfirmationService } from './confirmation.service.js';
import { ConfirmationVisibility } from './confirmation-visibility.js';
import { ConfirmationStore } from './confirmation.store.js';
import { ConfirmationVotesStore } from './confirmation-votes.store.js';
import { ConfirmationWaiter } from './confirmation-waiter.js';
import { ConfirmationsController } from './confirmations.controller.js';

@Module({
  imports: [ChannelsModule],
  controllers: [ConfirmationsController],
  providers: [ConfirmationStore, ConfirmationVotesStore, ConfirmationWaiter, ConfirmationService, ConfirmationVisibility, ConfirmationGateHook, ConfirmationInboxStream],
  exports: [ConfirmationService, ConfirmationWaiter, ConfirmationGateHook, ConfirmationInboxStream],
})
export class ConfirmationsModule {}
