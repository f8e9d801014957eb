import { createHash, randomInt } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { UsersService, type ChatPlatform, type Principal } from '@warden/auth';
import { BadInputError, ConflictError, isUuid, NotFoundError } from '@warden/common';
import { DataSource } from 'typeorm';
import type { ChannelRecord } from '../channel.js';
import { ChannelRegistry } from '../channel-registry.js';
import { ChannelsService } from '../channels.service.js';

/** How long a code may be used, and how many wrong guesses void it (6 digits, 5 guesses: 1 in 200 000). */
const CODE_TTL_S = 600;
const MAX_ATTEMPTS = 5;
const MAX_CODES_PER_HOUR = 5;

/** Why a code cannot be used, as refusalOf() reads it (`expired` is computed by the query). */
interface LinkCodeRow {
  attempts: number;
  consumed_at: Date | null;
  expired: boolean;
}

/** One counted guess: `linked` when it was the right code (the row is then consumed). */
interface GuessRow {
  platform: string;
  external_id: string;
  linked: boolean;
}

const hashOf = (linkId: string, code: string): Buffer => createHash('sha256').update(`${linkId}:${code}`).digest();

/**
 * Proof of owning a chat account: Warden sends a one-time code to that account through one of the org's channels,
 * and links the account to the user who enters it. The code is stored only as a hash; a wrong, expired, used or
 * foreign code changes nothing but the attempt count.
 */
@Injectable()
export class IdentityLinksService {
  private readonly logger = new Logger(IdentityLinksService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly channels: ChannelsService,
    private readonly registry: ChannelRegistry,
    private readonly users: UsersService,
  ) {}

  async start(p: Principal, input: { platform: ChatPlatform; externalId: string; channelId?: string }) {
    const channel = await this.channelFor(p.orgId, input.platform, input.channelId);
    const owner = await this.users.memberByIdentity(p.orgId, input.platform, input.externalId);
    if (owner && owner.userId !== p.userId)
      throw new ConflictError(`${input.platform} account ${input.externalId} is already linked to another user`);
    if (owner) throw new ConflictError(`${input.platform} account ${input.externalId} is already linked to you`);
    // Each code is a message to someone's chat account: a user cannot make Warden spam one.
    const [{ n }] = await this.dataSource.query<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM identity_link_codes
        WHERE org_id = $1 AND user_id = $2 AND created_at > now() - interval '1 hour'`,
      [p.orgId, p.userId],
    );
    if (n >= MAX_CODES_PER_HOUR)
      throw new ConflictError(`at most ${MAX_CODES_PER_HOUR} link codes an hour; try again later`);
    // A new code voids the user's earlier ones for the platform.
    await this.dataSource.query(
      `UPDATE identity_link_codes SET consumed_at = now()
        WHERE org_id = $1 AND user_id = $2 AND platform = $3 AND consumed_at IS NULL`,
      [p.orgId, p.userId, input.platform],
    );
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const [row] = await this.dataSource.query<Array<{ id: string; expires_at: Date }>>(
      `INSERT INTO identity_link_codes (org_id, user_id, platform, external_id, channel_id, code_hash, expires_at)
       VALUES ($1, $2, $3, $4, $5, 'pending', now() + make_interval(secs => $6)) RETURNING id, expires_at`,
      [p.orgId, p.userId, input.platform, input.externalId, channel.id, CODE_TTL_S],
    );
    await this.dataSource.query(`UPDATE identity_link_codes SET code_hash = $2 WHERE id = $1`, [
      row.id,
      hashOf(row.id, code).toString('hex'),
    ]);
    const text =
      `Warden: ${p.name ?? p.sub} (${p.sub}) asked to link this ${input.platform} account to their Warden user. ` +
      `Code: ${code} (valid ${CODE_TTL_S / 60} minutes). If that is not you, ignore this message.`;
    try {
      await this.registry.get(channel.type).sendDirectMessage(channel, input.externalId, text);
    } catch (err) {
      await this.dataSource.query(`DELETE FROM identity_link_codes WHERE id = $1`, [row.id]);
      this.logger.warn(`link code for ${input.platform} ${input.externalId} not sent: ${(err as Error).message}`);
      throw new BadInputError(
        `the code could not be sent to ${input.platform} account ${input.externalId}: ${(err as Error).message}`,
      );
    }
    return {
      link_id: row.id,
      platform: input.platform,
      external_id: input.externalId,
      channel_id: channel.id,
      expires_at: new Date(row.expires_at).toISOString(),
    };
  }

  async verify(p: Principal, linkId: string, code: string) {
    if (!isUuid(linkId)) throw new NotFoundError('identity link', linkId);
    const guess = await this.spendGuess(p, linkId, code);
    if (!guess) throw await this.refusalOf(p, linkId);
    if (!guess.linked) throw new BadInputError('wrong code; nothing was linked');
    const member = await this.users.setIdentities(
      p.orgId,
      p.sub,
      { [guess.platform as ChatPlatform]: guess.external_id },
      { byUserId: p.userId, method: 'proof' },
    );
    return {
      user_id: member.userId,
      sub: member.sub,
      identities: {
        feishu_open_id: member.identities.feishu ?? null,
        slack_user_id: member.identities.slack ?? null,
        wecom_user_id: member.identities.wecom ?? null,
      },
    };
  }

  /**
   * Checks and counts one guess in a single statement: the row lock makes concurrent guesses wait for each other and
   * re-check `attempts`, so a burst gets exactly MAX_ATTEMPTS tries. The right code consumes the row; a wrong one
   * raises the count. No row: the code is unknown, used, expired or spent (refusalOf says which). Comparing the hashes
   * in SQL is not a timing oracle worth having: they are SHA-256 of the link id and the guess.
   */
  private async spendGuess(p: Principal, linkId: string, code: string): Promise<GuessRow | undefined> {
    const [rows] = await this.dataSource.query<[GuessRow[], number]>(
      `UPDATE identity_link_codes
          SET consumed_at = CASE WHEN code_hash = $4 THEN now() ELSE consumed_at END,
              attempts = CASE WHEN code_hash = $4 THEN attempts ELSE attempts + 1 END
        WHERE id = $1 AND org_id = $2 AND user_id = $3
          AND consumed_at IS NULL AND expires_at > now() AND attempts < $5
        RETURNING platform, external_id, consumed_at IS NOT NULL AS linked`,
      [linkId, p.orgId, p.userId, hashOf(linkId, code).toString('hex'), MAX_ATTEMPTS],
    );
    return rows[0];
  }

  /** Why a guess was not counted, read after the fact (the row only ever moves towards unusable). */
  private async refusalOf(p: Principal, linkId: string): Promise<Error> {
    const [row] = await this.dataSource.query<[LinkCodeRow?]>(
      `SELECT attempts, consumed_at, expires_at <= now() AS expired FROM identity_link_codes
        WHERE id = $1 AND org_id = $2 AND user_id = $3`,
      [linkId, p.orgId, p.userId],
    );
    if (!row) return new NotFoundError('identity link', linkId);
    if (row.consumed_at)
      return new ConflictError('this code was already used or replaced by a newer one; request a new code');
    if (row.expired)
      return new BadInputError('the code has expired; request a new one with POST /api/me/identities/link');
    return new BadInputError('too many wrong codes; request a new one with POST /api/me/identities/link');
  }

  private async channelFor(orgId: string, platform: ChatPlatform, channelId?: string): Promise<ChannelRecord> {
    if (channelId) {
      const record = await this.channels.getRecord(orgId, channelId);
      if (record.type !== platform)
        throw new BadInputError(`channel ${channelId} is a ${record.type} channel, not ${platform}`);
      return record;
    }
    const first = (await this.channels.list(orgId)).find((c) => c.type === platform);
    if (!first)
      throw new BadInputError(
        `the organisation has no ${platform} channel to send the code through; ` +
          `an admin must add one (or link the account)`,
      );
    return this.channels.getRecord(orgId, first.id);
  }
}
