import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { OnBus } from '@warden/common';

import { UsersService, type MemberView } from '@warden/auth';
import { ChannelsService } from '@warden/channels';
import { refusalFor, type ChannelList } from './approver-check.js';
import { ConfirmationStore } from './confirmation.store.js';
import { ConfirmationWaiter } from './confirmation-waiter.js';
import {
  CONFIRMATION_REQUESTED,
  CONFIRMATION_SETTLED,
  CONFIRMATION_STEPPED,
  CONFIRMATION_VOTED,
  ConfirmationStatus,
  confirmationNotice,
  confirmationView,
  type ConfirmationRequest,
} from './confirmation.types.js';

export type InboxEvent = 'snapshot' | 'confirmation' | 'withdrawn';

/** One open inbox stream: the member it belongs to, where its events go, the pending requests it shows. */
interface InboxSubscriber {
  member: MemberView;
  send(type: InboxEvent, data: unknown): void;
  /** Ids of the pending requests this inbox was given (snapshot and since), to withdraw one its user lost. */
  shown: Set<string>;
  /** False until its snapshot is read: a change meanwhile may concern a row the snapshot is about to show. */
  ready: boolean;
}

/**
 * "Pending for me", live: each open inbox gets the pending requests the approver policy lets its user approve, then
 * every change to such a request (new, decided, expired), and `withdrawn` `{ id }` when a request it shows is no
 * longer its user's to decide (reassigned to someone else). Changes arrive through the waiters' LISTEN connection
 * (other instances) and in-process events (this one, and PGlite); the changed rows are read in one query per batch of
 * changes, whatever the number of open inboxes — nothing polls per client.
 */
@Injectable()
export class ConfirmationInboxStream implements OnModuleInit {
  private readonly logger = new Logger(ConfirmationInboxStream.name);
  private readonly subscribers = new Map<string, Set<InboxSubscriber>>();
  private readonly changed = new Map<string, ConfirmationRequest | null>();
  private flushScheduled = false;
  /** Flushes run one after another: a later change of a request is never told before an earlier one. */
  private flushes: Promise<void> = Promise.resolve();
  /** Rows read to fan changes out (the bench and tests read this: it grows per change, not per subscriber). */
  fetches = 0;

  constructor(
    private readonly store: ConfirmationStore,
    private readonly waiter: ConfirmationWaiter,
    private readonly channels: ChannelsService,
    private readonly users: UsersService,
  ) {}

  onModuleInit(): void {
    this.waiter.observeNotifications((payload) => this.onChange(confirmationNotice(payload).id, null));
  }

  @OnBus(CONFIRMATION_REQUESTED)
  onRequested(row: ConfirmationRequest): void {
    this.onChange(row.id, row);
  }

  @OnBus(CONFIRMATION_SETTLED)
  onSettled(row: ConfirmationRequest): void {
    this.onChange(row.id, row);
  }

  @OnBus(CONFIRMATION_VOTED)
  onVoted(row: ConfirmationRequest): void {
    this.onChange(row.id, row);
  }

  /** A reminder or escalation: the card shows it, and an escalation's widened approvers now see the request. */
  @OnBus(CONFIRMATION_STEPPED)
  onStepped(row: ConfirmationRequest): void {
    this.onChange(row.id, row);
  }

  get openStreams(): number {
    let n = 0;
    for (const set of this.subscribers.values()) n += set.size;
    return n;
  }

  /** Opens an inbox for the signed-in user; null when they are not a member of the org. Returns the unsubscribe. */
  async subscribe(orgId: string, userId: string, send: InboxSubscriber['send']): Promise<(() => void) | null> {
    const member = await this.users.memberById(orgId, userId);
    if (!member) return null;
    // Buffered until the snapshot is out, so a change never arrives before the state it changes.
    const early: Array<[InboxEvent, unknown]> = [];
    const sub: InboxSubscriber = {
      member,
      shown: new Set(),
      ready: false,
      send: (type, data) => (sub.ready ? send(type, data) : early.push([type, data])),
    };
    const set = this.subscribers.get(orgId) ?? new Set();
    this.subscribers.set(orgId, set);
    set.add(sub);
    const unsubscribe = () => {
      set.delete(sub);
      if (set.size === 0 && this.subscribers.get(orgId) === set) this.subscribers.delete(orgId);
    };
    try {
      const pending = await this.store.list(orgId, { status: ConfirmationStatus.Pending, limit: 500 });
      const lists = new Map<string, Promise<ChannelList>>();
      const rows = [];
      for (const row of pending) {
        if (!(await this.mayApprove(row, member, lists))) continue;
        rows.push(confirmationView(row));
        sub.shown.add(row.id);
      }
      send('snapshot', { rows });
      sub.ready = true;
      for (const [type, data] of early) send(type, data);
    } catch (err) {
      unsubscribe();
      throw err;
    }
    return unsubscribe;
  }

  private onChange(id: string, row: ConfirmationRequest | null): void {
    if (this.subscribers.size === 0) return;
    // A row in hand (in-process event) needs no query; a notification from elsewhere is read in the batch.
    if (row || !this.changed.has(id)) this.changed.set(id, row);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushes = this.flushes.then(() => this.flush());
    });
  }

  private async flush(): Promise<void> {
    this.flushScheduled = false;
    const batch = new Map(this.changed);
    this.changed.clear();
    try {
      const missing = [...batch].filter(([, row]) => !row).map(([id]) => id);
      if (missing.length > 0) {
        this.fetches++;
        for (const r of await this.store.findAmong(missing, [...this.subscribers.keys()])) batch.set(r.id, r);
      }
      const lists = new Map<string, Promise<ChannelList>>();
      for (const row of batch.values()) {
        if (!row) continue;
        for (const sub of this.subscribers.get(row.orgId) ?? []) await this.tell(sub, row, lists);
      }
    } catch (err) {
      this.logger.warn(
        `inbox streams missed a change (open inboxes catch up when they reconnect): ${(err as Error).message}`,
      );
    }
  }

  /** The change if the inbox's user may decide the request; else, if the inbox may be showing it, its withdrawal. */
  private async tell(
    sub: InboxSubscriber,
    row: ConfirmationRequest,
    lists: Map<string, Promise<ChannelList>>,
  ): Promise<void> {
    if (await this.mayApprove(row, sub.member, lists)) {
      if (row.status === ConfirmationStatus.Pending) sub.shown.add(row.id);
      else sub.shown.delete(row.id);
      sub.send('confirmation', confirmationView(row));
    } else if (sub.shown.delete(row.id) || !sub.ready) {
      sub.send('withdrawn', { id: row.id });
    }
  }

  /** The approver policy of approver-check.ts, the same one a decision is checked against. */
  private async mayApprove(
    row: ConfirmationRequest,
    member: MemberView,
    lists: Map<string, Promise<ChannelList>>,
  ): Promise<boolean> {
    const key = `${row.orgId}:${row.channelId}`;
    const list = lists.get(key) ?? this.channels.approverList(row.orgId, row.channelId);
    lists.set(key, list);
    return refusalFor(row, { member }, 'approve', await list) === null;
  }
}
