import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '@warden/auth';
import { DryRunDto } from './dto/dry-run.dto.js';
import { HookCatalog } from './hook-catalog.js';
import { HookDryRunService } from './hook-dry-run.service.js';
import { DryRunVerdictResponse, HookInfoResponse } from './dto/hook.response.js';

@ApiTags('hooks')
@ApiBearerAuth()
@Controller('hooks')
export class HooksController {
  constructor(
    private readonly catalog: HookCatalog,
    private readonly dryRuns: HookDryRunService,
  ) {}

  /** Every discovered hook class, in the order a registry would run them. */
  @Get()
  @ApiOkResponse({ type: [HookInfoResponse] })
  list() {
    return this.catalog.list().map((e) => ({
      name: e.name,
      point: e.point,
      priority: e.priority,
      description: e.description,
      config_schema: e.configSchema ?? null,
      auto_attached: e.autoAttach,
    }));
  }

  /** What each hook of an agent would decide for a sample call; nothing is executed, sent or written. */
  @Post('dry-run')
  @ApiOkResponse({ type: [DryRunVerdictResponse] })
  @HttpCode(200)
  dryRun(@CurrentPrincipal() principal: Principal, @Body() body: DryRunDto) {
    return this.dryRuns.dryRun(principal, body);
  }
}
