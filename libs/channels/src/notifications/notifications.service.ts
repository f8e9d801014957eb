import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { NotificationEntity } from './notification.entity.js';

export interface NewNotification {
  orgId: string;
  channelId?: string | null;
  agentId?: string | null;
  runId?: string | null;
  userId?: string | null;
  text: string;
}

@Injectable()
export class NotificationsService {
  constructor(@InjectRepository(NotificationEntity) private readonly notifications: Repository<NotificationEntity>) {}

  async record(n: NewNotification): Promise<NotificationEntity> {
    return this.notifications.save(
      this.notifications.create({
        orgId: n.orgId,
        channelId: n.channelId ?? null,
        agentId: n.agentId ?? null,
        runId: n.runId ?? null,
        userId: n.userId ?? null,
        text: n.text,
      }),
    );
  }

  /**
   * The org's inbox, newest first; with `startedBy`, only messages of that user's runs (a notification's user_id is
   * the user who started the run that sent it; messages sent outside a run have none).
   */
  async list(orgId: string, limit = 100, startedBy?: string): Promise<NotificationEntity[]> {
    const where = startedBy === undefined ? { orgId } : { orgId, userId: startedBy };
    return this.notifications.find({ where, order: { createdAt: 'DESC', id: 'DESC' }, take: limit });
  }
}
