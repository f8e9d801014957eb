import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ChannelEventEntity } from './channel.entity.js';

/**
 * The de-duplication of platform callback deliveries (`channel_events`): platforms retry and may replay a click, so
 * each event id of a channel is handled once.
 */
@Injectable()
export class CallbackEvents {
  constructor(@InjectRepository(ChannelEventEntity) private readonly events: Repository<ChannelEventEntity>) {}

  /** true the first time an event id is seen for a channel; false for a retried or replayed delivery. */
  async claim(channelId: string, eventId: string): Promise<boolean> {
    const res = await this.events
      .createQueryBuilder()
      .insert()
      .values({ channelId, eventId: eventId.slice(0, 500) })
      .orIgnore()
      .returning(['event_id'])
      .execute();
    return (res.raw as unknown[]).length > 0;
  }

  /** Lets a platform retry go through when handling the first delivery failed on our side. */
  async release(channelId: string, eventId: string): Promise<void> {
    await this.events.delete({ channelId, eventId: eventId.slice(0, 500) });
  }
}
