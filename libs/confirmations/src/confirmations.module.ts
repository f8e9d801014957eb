import { Module } from '@nestjs/common';
import { ChannelsModule } from '@warden/channels';
import { ConfirmationGateHook } from './confirmation-gate.hook.js';
import { ApprovalCardDelivery } from './gate/approval-card-delivery.js';
import { ApprovalRequestOpener } from './gate/approval-request-opener.js';
import { SettledHere } from './gate/settled-here.js';
import { ConfirmationInboxStream } from './confirmation-inbox-stream.js';
import { ConfirmationCards } from './confirmation-cards.js';
import { ConfirmationDecisionService } from './confirmation-decision.service.js';
import { DeciderResolver } from './decider-resolver.js';
import { EditRetier } from './edits/edit-retier.js';
import { ConfirmationService } from './confirmation.service.js';
import { ConfirmationVisibility } from './confirmation-visibility.js';
import { ConfirmationStore } from './confirmation.store.js';
import { ConfirmationVotesStore } from './confirmation-votes.store.js';
import { ConfirmationWaiter } from './confirmation-waiter.js';
import { ConfirmationsController } from './confirmations.controller.js';
import { ConfirmationEscalator } from './escalation/confirmation-escalator.js';
import { ConfirmationReassignment } from './escalation/confirmation-reassignment.js';
import { EscalationStore } from './escalation/escalation.store.js';
import { BatchCards } from './batch/batch-cards.js';
import { BatchStore } from './batch/batch.store.js';
import { StandingApprovalStore } from './standing/standing-approval.store.js';
import { StandingCoversWaiting } from './standing/standing-waiting.js';
import { StandingApprovals } from './standing/standing-approvals.js';
import { IntegrityAlarm } from './integrity/integrity-alarm.js';

@Module({
  imports: [ChannelsModule],
  controllers: [ConfirmationsController],
  providers: [
    ConfirmationStore,
    ConfirmationVotesStore,
    ConfirmationWaiter,
    ConfirmationCards,
    ConfirmationDecisionService,
    DeciderResolver,
    EditRetier,
    ConfirmationService,
    ConfirmationVisibility,
    ApprovalRequestOpener,
    SettledHere,
    ApprovalCardDelivery,
    ConfirmationGateHook,
    ConfirmationInboxStream,
    StandingApprovalStore,
    StandingApprovals,
    StandingCoversWaiting,
    EscalationStore,
    ConfirmationEscalator,
    ConfirmationReassignment,
    BatchStore,
    BatchCards,
    IntegrityAlarm,
  ],
  exports: [
    ConfirmationService,
    ConfirmationWaiter,
    ConfirmationGateHook,
    ConfirmationInboxStream,
    ConfirmationEscalator,
  ],
})
export class ConfirmationsModule {}
