import { Injectable } from '@nestjs/common';
import { isAdmin, UsersService, type MemberView, type Principal } from '@warden/auth';
import { ChannelsService } from '@warden/channels';
import { NotFoundError } from '@warden/common';
import { refusalFor, type ChannelList } from './approver-check.js';
import { ConfirmationStore } from './confirmation.store.js';
import type { ConfirmationRequest, ConfirmationStatus } from './confirmation.types.js';

const PAGE = 200;

/**
 * Who may read an approval request (its args): an admin every request of the org; a member the requests they made
 * and those the request's approver policy lets them decide — the same check as a decision (approver-check.ts), so
 * the inbox shows exactly what its reader could act on. Anything else is "not found".
 */
@Injectable()
export class ConfirmationVisibility {
  constructor(
    private readonly store: ConfirmationStore,
    private readonly users: UsersService,
    private readonly channels: ChannelsService,
  ) {}

  async get(p: Principal, id: string): Promise<ConfirmationRequest> {
    const row = await this.store.findInOrg(p.orgId, id);
    if (row && (isAdmin(p) || (await this.mayRead(row, await this.users.memberById(p.orgId, p.userId), new Map()))))
      return row;
    throw new NotFoundError('confirmation', id);
  }

  /** Newest first, up to `limit` rows the caller may read (pages through the org's rows for a member). */
  async list(p: Principal, filter: { status?: ConfirmationStatus; limit?: number }): Promise<ConfirmationRequest[]> {
    const limit = filter.limit ?? 100;
    if (isAdmin(p)) return this.store.list(p.orgId, { status: filter.status, limit });
    const member = await this.users.memberById(p.orgId, p.userId);
    if (!member) return [];
    const lists = new Map<string, Promise<ChannelList>>();
    const out: ConfirmationRequest[] = [];
    for (let afterId: string | undefined; ;) {
      const page = await this.store.list(p.orgId, {
        status: filter.status,
        limit: PAGE,
        afterId,
        candidatesFor: member,
      });
      for (const row of page) {
        if (await this.mayRead(row, member, lists)) out.push(row);
        if (out.length === limit) return out;
      }
      const last = page.at(-1);
      if (!last || page.length < PAGE) return out;
      afterId = last.id;
    }
  }

  /** Made it, or may decide it ("reject": the self-approval rule limits approving, not seeing). */
  private async mayRead(
    row: ConfirmationRequest,
    member: MemberView | null,
    lists: Map<string, Promise<ChannelList>>,
  ): Promise<boolean> {
    if (!member) return false;
    if (row.requestedBy === member.userId) return true;
    const key = row.channelId ?? '';
    const list = lists.get(key) ?? this.channels.approverList(row.orgId, row.channelId);
    lists.set(key, list);
    return refusalFor(row, { member }, 'reject', await list) === null;
  }
}
