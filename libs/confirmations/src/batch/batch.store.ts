import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { rowToConfirmation, type ConfirmationRequest, type ConfirmationRow } from '../confirmation.types.js';

interface SentCard {
  platformMessageId?: string;
  extra?: Record<string, unknown>;
}

interface SentCardRow {
  sent_card: SentCard | null;
}
const RECLAIM_AFTER_S = 15;

/**
 * One card per model turn (table `confirmation_batches`): the gated calls of a turn share a `batch_key`; the first
 * gate to claim the batch sends its card, and every row of the batch then carries that card as its `sent_card`.
 */
@Injectable()
export class BatchStore {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * True for exactly one caller per batch: that one sends the card. A claim whose card was still not recorded after
   * RECLAIM_AFTER_S (its process died between the claim and the send) may be taken again by a resumed gate; a send that
   * was merely slow is not duplicated on the platform (the card's idempotency key is derived from the batch key).
   */
  async claim(batchKey: string, orgId: string, channelId: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO confirmation_batches (batch_key, org_id, channel_id) VALUES ($1, $2, $3)
       ON CONFLICT (batch_key) DO UPDATE SET created_at = now()
        WHERE confirmation_batches.sent_card IS NULL
          AND confirmation_batches.created_at < now() - make_interval(secs => ${RECLAIM_AFTER_S})
       RETURNING batch_key`,
      [batchKey, orgId, channelId],
    );
    return rows.length > 0;
  }

  /** Records the card on the batch and on every row of it (rows that join later read it from the batch). */
  async recordCard(batchKey: string, sent: SentCard): Promise<void> {
    await this.dataSource.query(
      `WITH b AS (UPDATE confirmation_batches SET sent_card = $2::jsonb WHERE batch_key = $1 RETURNING batch_key)
       UPDATE confirmation_requests SET sent_card = $2::jsonb, platform_message_id = $3, updated_at = now()
        WHERE batch_key IN (SELECT batch_key FROM b)`,
      [batchKey, JSON.stringify(sent), sent.platformMessageId ?? null],
    );
  }

  /** The batch's card if it was sent; the row that asks is given it too. */
  async adoptCard(batchKey: string, confirmationId: string): Promise<SentCard | null> {
    const [first] = await this.dataSource.query<[SentCardRow[] | SentCardRow | undefined]>(
      `WITH b AS (SELECT sent_card FROM confirmation_batches WHERE batch_key = $1 AND sent_card IS NOT NULL)
       UPDATE confirmation_requests SET sent_card = (SELECT sent_card FROM b),
              platform_message_id = (SELECT sent_card->>'platformMessageId' FROM b)
        WHERE id = $2 AND EXISTS (SELECT 1 FROM b) RETURNING sent_card`,
      [batchKey, confirmationId],
    );
    // TypeORM answers an UPDATE ... RETURNING as [rows, count].
    const row: SentCardRow | undefined = Array.isArray(first) ? first[0] : first;
    return row?.sent_card ?? null;
  }

  /** Every request of the batch, in the order of the turn's calls. */
  async rows(batchKey: string): Promise<ConfirmationRequest[]> {
    const rows = await this.dataSource.query<ConfirmationRow[]>(
      `SELECT * FROM confirmation_requests WHERE batch_key = $1 ORDER BY batch_position, created_at`,
      [batchKey],
    );
    return rows.map(rowToConfirmation);
  }
}
