import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, isAdmin, type Principal } from '@warden/auth';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { NotificationsService } from './notifications.service.js';
import { NotificationResponse } from '../dto/channel.response.js';

export class ListNotificationsQuery {
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(500) limit?: number;
}

@ApiTags('channels')
@ApiBearerAuth()
@Controller('notifications')
export class NotificationsController {
  constructor(private readonly notifications: NotificationsService) {}

  /** An admin reads the org's inbox; a member only the messages of runs they started (like the runs themselves). */
  @Get()
  @ApiOkResponse({ type: [NotificationResponse] })
  async list(@CurrentPrincipal() p: Principal, @Query() q: ListNotificationsQuery) {
    const rows = await this.notifications.list(p.orgId, q.limit ?? 100, isAdmin(p) ? undefined : p.userId);
    return rows.map((n) => ({
      id: n.id,
      channel_id: n.channelId,
      agent_id: n.agentId,
      run_id: n.runId,
      user_id: n.userId,
      text: n.text,
      created_at: n.createdAt.toISOString(),
    }));
  }
}
