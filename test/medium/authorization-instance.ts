import { EventEmitter2 } from '@nestjs/event-emitter';
import type { MemberView, UsersService } from '@warden/auth';
import type { ChannelsService } from '@warden/channels';
import type { AuditTrail } from '@warden/common';
// Narrow imports: the stores and the decision path, no app, no HTTP.
import { ConfirmationDecisionService } from '../../libs/confirmations/src/confirmation-decision.service.js';
import type { ConfirmationCards } from '../../libs/confirmations/src/confirmation-cards.js';
import { ConfirmationService } from '../../libs/confirmations/src/confirmation.service.js';
import { ConfirmationStore } from '../../libs/confirmations/src/confirmation.store.js';
import { ConfirmationVotesStore } from '../../libs/confirmations/src/confirmation-votes.store.js';
import { DeciderResolver } from '../../libs/confirmations/src/decider-resolver.js';
import { EditRetier } from '../../libs/confirmations/src/edits/edit-retier.js';
import { ConfirmationReassignment } from '../../libs/confirmations/src/escalation/confirmation-reassignment.js';
import { EscalationStore } from '../../libs/confirmations/src/escalation/escalation.store.js';
import { IntegrityAlarm } from '../../libs/confirmations/src/integrity/integrity-alarm.js';
import { StandingApprovalStore } from '../../libs/confirmations/src/standing/standing-approval.store.js';
import { StandingApprovals } from '../../libs/confirmations/src/standing/standing-approvals.js';
import { StandingCoversWaiting } from '../../libs/confirmations/src/standing/standing-waiting.js';
import type { MediumDb } from './medium-db.js';

/**
 * One instance of the approval stores and the decision path on the medium database (authorization-model.db.spec.ts):
 * real SQL; who is a member comes from `members`, and cards, channels (lists, notifications) and the audit chain are
 * out of scope. The reassignment is wired as ConfirmationsModule wires it.
 */
export interface Instance {
  store: ConfirmationStore;
  decisions: ConfirmationDecisionService;
  standing: StandingApprovals;
  waiting: StandingCoversWaiting;
  reassignment: ConfirmationReassignment;
}

export function instance(db: MediumDb, members: Map<string, MemberView>): Instance {
  const bySub = (sub: string) => [...members.values()].find((m) => m.sub === sub);
  const users = {
    memberById: (_org: string, id: string) => Promise.resolve(members.get(id) ?? null),
    memberBySub: (_org: string, sub: string) =>
      bySub(sub) ? Promise.resolve(bySub(sub)) : Promise.reject(new Error(`no ${sub}`)),
  } as unknown as UsersService;
  const told = { sendNotification: () => Promise.resolve() };
  const channels = {
    approverList: () => Promise.resolve({}),
    resolveForDelivery: () => Promise.resolve({ record: {}, impl: told }),
  } as unknown as ChannelsService;
  const store = new ConfirmationStore(db.dataSource, new EventEmitter2());
  const audit = { record: () => Promise.resolve() } as unknown as AuditTrail;
  const standingStore = new StandingApprovalStore(db.dataSource);
  const standing = new StandingApprovals(standingStore, audit, db.dataSource);
  const cards = { refreshPendingCard: () => Promise.resolve() } as unknown as ConfirmationCards;
  const votes = new ConfirmationVotesStore(db.dataSource, new EventEmitter2());
  const deciders = new DeciderResolver(users, channels);
  const waiting = new StandingCoversWaiting(store, votes, deciders, standingStore, audit, db.dataSource);
  const decisions = new ConfirmationDecisionService(
    store,
    votes,
    users,
    deciders,
    new EditRetier(store, channels),
    standing,
    waiting,
    cards,
    audit,
    new IntegrityAlarm(store, audit),
  );
  const confirmations = new ConfirmationService(decisions, cards, store, channels);
  const reassignment = new ConfirmationReassignment(
    confirmations,
    new EscalationStore(db.dataSource),
    votes,
    users,
    channels,
    audit,
    db.dataSource,
    new EventEmitter2(),
  );
  return { store, decisions, standing, waiting, reassignment };
}

/** What the medium tests' requests share: an inbox request of no agent, asked by nobody in particular. */
export const INBOX_REQUEST = {
  agentId: null,
  agentName: null,
  requestedBy: null,
  approverScope: 'initiator',
  agentOwnerId: null,
  forbidSelfApproval: false,
  channelId: 'none',
  channelType: 'inbox',
  timeoutS: 600,
} as const;

/** A new user, member of the medium database's org with `roles`. */
export async function addMember(db: MediumDb, sub: string, roles: string[] = []): Promise<MemberView> {
  const [{ id }] = await db.dataSource.query<Array<{ id: string }>>(
    `INSERT INTO users (sub, name) VALUES ($1, $1) RETURNING id`,
    [sub],
  );
  await db.dataSource.query(`INSERT INTO org_members (org_id, user_id, roles) VALUES ($1, $2, $3)`, [
    db.orgId,
    id,
    roles,
  ]);
  return { userId: id, sub, email: null, name: sub, roles, identities: {} };
}
