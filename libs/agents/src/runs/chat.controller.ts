import { Body, Controller, Post, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '@warden/auth';
import type { Response } from 'express';
import { RunExecutor } from '../engine/run-executor.js';
import { ChatDto } from './dto/chat.dto.js';
import { RunsService } from './runs.service.js';
import { SSE_RESPONSE } from '@warden/common';

@ApiTags('chat')
@ApiBearerAuth()
@Controller('chat')
export class ChatController {
  constructor(
    private readonly executor: RunExecutor,
    private readonly runs: RunsService,
  ) {}

  /**
   * Starts the run before any byte is sent, so an unknown agent is a 404 and a refused run a plain 422; then streams
   * its events. The run is detached from this request: a client that goes away does not stop it.
   */
  @Post()
  @ApiOkResponse(SSE_RESPONSE)
  async chat(@CurrentPrincipal() p: Principal, @Body() dto: ChatDto, @Res() res: Response): Promise<void> {
    const started = await this.executor.start({
      orgId: p.orgId,
      userId: p.userId,
      agentId: dto.agent_id,
      message: dto.message,
      conversationId: dto.conversation_id,
      mode: dto.mode ?? 'react',
      surface: dto.surface ?? 'chat',
    });
    await this.runs.stream(started.runId, 0, res);
  }
}
