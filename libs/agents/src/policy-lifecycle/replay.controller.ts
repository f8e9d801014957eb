import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Roles, type Principal } from '@warden/auth';
import { ReplayDto, ReplayResponse } from './dto/replay.dto.js';
import { ReplayService } from './replay.service.js';

/** What-if over recorded calls (admins: it shows everyone's calls). Changes nothing. */
@ApiTags('policies')
@ApiBearerAuth()
@Controller('policies')
@Roles('admin')
export class ReplayController {
  constructor(private readonly replays: ReplayService) {}

  @Post('replay')
  @HttpCode(200)
  @ApiOkResponse({ type: ReplayResponse })
  replay(@CurrentPrincipal() p: Principal, @Body() body: ReplayDto) {
    return this.replays.replay(p.orgId, body);
  }
}
