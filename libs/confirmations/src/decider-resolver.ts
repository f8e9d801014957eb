import { Injectable } from '@nestjs/common';
import { UsersService } from '@warden/auth';
import { ChannelsService, type ChatPlatform, type Decision } from '@warden/channels';
import { ForbiddenError } from '@warden/common';
import { approversOf, refusalFor, type ResolvedDecider } from './approver-check.js';
import type { ConfirmationRequest } from './confirmation.types.js';

/** A signed-in user deciding through the API (the inbox). */
export interface UserActor {
  userId: string;
}

/** A verified click in a chat app, on the channel the card was sent to. */
export interface PlatformActor {
  platform: ChatPlatform;
  externalId: string;
  channelId: string;
}

export type Actor = UserActor | PlatformActor;
export type MemberLookup = ReturnType<UsersService['memberById']>;

/**
 * Resolves who is deciding to a Warden user — the signed-in user, or the user a proven chat identity is linked
 * to — and applies the request's approver policy (approver-check.ts). An identity linked to nobody decides
 * nothing, even when the channel lists it: without a user, self-approval could not be ruled out.
 */
@Injectable()
export class DeciderResolver {
  constructor(
    private readonly users: UsersService,
    private readonly channels: ChannelsService,
  ) {}

  async resolve(
    row: ConfirmationRequest,
    decision: Decision,
    actor: Actor,
    userMember?: MemberLookup,
  ): Promise<ResolvedDecider> {
    // The channel's approver list is read beside the decider's membership (and awaited once that is known).
    const listing = this.channels.approverList(row.orgId, row.channelId);
    listing.catch(() => undefined);
    let decider: ResolvedDecider;
    if ('userId' in actor) {
      const member = await (userMember ?? this.users.memberById(row.orgId, actor.userId));
      if (!member) throw new ForbiddenError('you are not a member of the organisation that owns this request');
      decider = { member };
    } else {
      const who = `${actor.platform} user ${actor.externalId}`;
      const member = await this.users.memberByIdentity(row.orgId, actor.platform, actor.externalId);
      const list = await listing;
      if (!member) {
        const listed = list.ids && (list.ids.includes('*') || list.ids.includes(actor.externalId));
        if (list.ids && !listed && approversOf(row).includes('channel'))
          throw new ForbiddenError(`${who} is not in this channel's approver list`);
        throw new ForbiddenError(
          `${who} is not linked to a Warden user, so Warden cannot tell who is deciding: ` +
            `link the account first (POST /api/me/identities/link)`,
        );
      }
      decider = { member, via: { platform: actor.platform, externalId: actor.externalId } };
    }
    const refusal = refusalFor(row, decider, decision, await listing);
    if (refusal) throw new ForbiddenError(refusal);
    return decider;
  }
}
