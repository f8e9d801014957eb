import { Controller, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '@warden/auth';
import { parseLastEventId, SSE_RESPONSE } from '@warden/common';
import type { Response } from 'express';
import { RunsService } from './runs.service.js';
import { RunResponse } from './dto/run.response.js';

@ApiTags('runs')
@ApiBearerAuth()
@Controller('runs')
export class RunsController {
  constructor(private readonly runs: RunsService) {}

  @Get(':id')
  @ApiOkResponse({ type: RunResponse })
  get(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<RunResponse> {
    return this.runs.view(p, id);
  }

  /**
   * Replays after `Last-Event-ID` (header, or `last_event_id` query for EventSource-less clients), then live until
   * `done`.
   */
  @Get(':id/events')
  @ApiOkResponse(SSE_RESPONSE)
  async events(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Res() res: Response,
    @Headers('last-event-id') lastEventId?: string,
    @Query('last_event_id') lastEventIdQuery?: string,
  ): Promise<void> {
    const after = parseLastEventId(lastEventId, lastEventIdQuery);
    const run = await this.runs.findVisible(p, id);
    await this.runs.stream(run.id, after, res);
  }

  @Post(':id/cancel')
  @ApiOkResponse({ type: RunResponse })
  @HttpCode(200)
  cancel(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<RunResponse> {
    return this.runs.cancel(p, id);
  }
}
