import { EventEmitter2 } from '@nestjs/event-emitter';
import type { MemberView, UsersService } from '@warden/auth';
import type { ChannelsService } from '@warden/channels';
import type { AuditTrail } from '@warden/common';
// Narrow imports: the stores and the decision path, no app, no HTTP.
import { ConfirmationDecisionService } from '../../libs/confirmations/src/confirmation-decision.service.js';
import type { ConfirmationCards } from '../../libs/confirmations/src/confirmation-cards.js';
import { ConfirmationStore } from '../../libs/confirmations/src/confirmation.store.js';
import { ConfirmationVotesStore } from '../../libs/confirmations/src/confirmation-votes.store.js';
import { DeciderResolver } from '../../libs/confirmations/src/decider-resolver.js';
import { EditRetier } from '../../libs/confirmations/src/edits/edit-retier.js';
import { IntegrityAlarm } from '../../libs/confirmations/src/integrity/integrity-alarm.js';
import { StandingApprovalStore } from '../../libs/confirmations/src/standing/standing-approval.store.js';
import { StandingApprovals } from '../../libs/confirmations/src/standing/standing-approvals.js';
import type { MediumDb } from './medium-db.js';

/**
 * One instance of the approval stores and the decision path on the medium database (authorization-model.db.spec.ts):
 * real SQL; who is a member comes from `members`, and cards, channel lists and the audit chain are out of scope.
 */
export interface Instance {
  store: ConfirmationStore;
  decisions: ConfirmationDecisionService;
  standing: StandingApprovals;
}

export function instance(db: MediumDb, members: Map<string, MemberView>): Instance {
  const users = { memberById: (_org: string, id: string) => Promise.resolve(members.get(id) ?? null) } as unknown as UsersService;
  const channels = { approverList: () => Promise.resolve({}) } as unknown as ChannelsService;
  const store = new ConfirmationStore(db.dataSource, new EventEmitter2());
  const audit = { record: () => Promise.resolve() } as unknown as AuditTrail;
  const standing = new StandingApprovals(new StandingApprovalStore(db.dataSource), audit, db.dataSource);
  const cards = { refreshPendingCard: () => Promise.resolve() } as unknown as ConfirmationCards;
  const decisions = new ConfirmationDecisionService(
    store,
    new ConfirmationVotesStore(db.dataSource, new EventEmitter2()),
    users,
    new DeciderResolver(users, channels),
    new EditRetier(store, channels),
    standing,
    cards,
    audit,
    new IntegrityAlarm(store, audit),
  );
  return { store, decisions, standing };
}
