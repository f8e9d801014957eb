import type { ChannelsService } from '@warden/channels';
import type { UsersService } from '@warden/auth';
import type { ChannelList } from './approver-check.js';
import { ConfirmationInboxStream } from './confirmation-inbox-stream.js';
import type { ConfirmationStore } from './confirmation.store.js';
import { ConfirmationStatus, type ConfirmationRequest } from './confirmation.types.js';
import type { ConfirmationWaiter } from './confirmation-waiter.js';

/** A request as the store hands it out, with what the inbox reads of it. */
const request = (status: ConfirmationStatus): ConfirmationRequest =>
  ({
    id: 'c-1',
    orgId: 'org-1',
    channelId: null,
    status,
    approverScope: 'org_members',
    approvers: null,
    forbidSelfApproval: false,
    requestedBy: 'u-member',
    expiresAt: new Date(),
    createdAt: new Date(),
  }) as unknown as ConfirmationRequest;

describe('ConfirmationInboxStream', () => {
  it('tells an inbox the changes of a request in the order they happened, even when reading approvers is slow', async () => {
    // The approver list of the first change is held until the second change has been told (a barrier, no timing).
    const lists: Array<(list: ChannelList) => void> = [];
    const channels = {
      approverList: () => new Promise<ChannelList>((resolve) => lists.push(resolve)),
    } as unknown as ChannelsService;
    const users = {
      memberById: () => Promise.resolve({ userId: 'u-admin', sub: 'ada', roles: ['admin'], active: true }),
    } as unknown as UsersService;
    const store = { list: () => Promise.resolve([]) } as unknown as ConfirmationStore;
    const waiter = { observeNotifications: () => undefined } as unknown as ConfirmationWaiter;
    const inbox = new ConfirmationInboxStream(store, waiter, channels, users);
    const told: Array<{ type: string; status?: string }> = [];
    await inbox.subscribe('org-1', 'u-admin', (type, data) =>
      told.push({ type, status: (data as { status?: string }).status }),
    );
    const waitFor = async (n: number) => {
      while (lists.length < n) await new Promise((r) => setImmediate(r));
    };

    inbox.onVoted(request(ConfirmationStatus.Pending)); // a vote recorded: still pending for now
    await waitFor(1);
    inbox.onSettled(request(ConfirmationStatus.Approved)); // then the request settles
    // Whether or not the second change asks for its list before the first is answered, answer them in reverse.
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    lists.at(-1)?.({});
    lists[0]({});
    while (told.length < 3) {
      lists.forEach((resolve) => resolve({}));
      await new Promise((r) => setImmediate(r));
    }

    expect(told.map((t) => t.type)).toEqual(['snapshot', 'confirmation', 'confirmation']);
    // The card's last word is the request's last state: approved, not the vote's "pending" told after it.
    expect(told.at(-1)?.status).toBe('approved');
  });
});
