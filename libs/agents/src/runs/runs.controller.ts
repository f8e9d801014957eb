import { Controller, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '@warden/auth';
import { parseLastEventId } from '@warden/common';
import type { Response } from 'express';
import { RunsService } from './runs.service.js';

@ApiTags('runs')
@ApiBearerAuth()
@Controller('runs')
export class RunsController {
  constructor(private readonly runs: RunsService) {}

  @Get(':id')
  get(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.runs.view(p, id);
  }

  /** Replays after `Last-Event-ID` (header, or `last_event_id` query for EventSource-less clients), then live until `done`. */
  @Get(':id/events')
  async events(
    @CurrentPrincipal() p: Principal, @Param('id') id: string, @Res() res: Response,
    @Headers('last-event-id') lastEventId?: string, @Query('last_event_id') lastEventIdQuery?: string,
  ): Promise<void> {
    const after = parseLastEventId(lastEventId, lastEventIdQuery);
    const run = await this.runs.findVisible(p, id);
    await this.runs.stream(run.id, after, res);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  cancel(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.runs.cancel(p, id);
  }
}
