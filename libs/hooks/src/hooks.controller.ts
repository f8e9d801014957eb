import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Roles, type Principal } from '@warden/auth';
import { tryTierCondition } from './approver-policy.js';
import { CelCheckDto, CelCheckResponse } from './dto/cel-check.dto.js';
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

  /**
   * Every discovered hook class by priority. `runs_last` hooks (the confirmation gate) run after every other hook
   * of their point whatever the priorities: they decide on the args the others leave.
   */
  @Get()
  @ApiOkResponse({ type: [HookInfoResponse] })
  list(): HookInfoResponse[] {
    return this.catalog.list().map((e) => ({
      name: e.name,
      point: e.point,
      priority: e.priority,
      description: e.description,
      config_schema: e.configSchema ?? null,
      auto_attached: e.autoAttach,
      runs_last: e.runsLast ?? false,
    }));
  }

  /**
   * What each hook of an agent would decide for a sample call; nothing is executed, sent or written. Admin-only:
   * it runs the hook programs with arguments of the caller's choosing.
   */
  @Post('dry-run')
  @Roles('admin')
  @ApiOkResponse({ type: [DryRunVerdictResponse] })
  @HttpCode(200)
  dryRun(@CurrentPrincipal() principal: Principal, @Body() body: DryRunDto) {
    return this.dryRuns.dryRun(principal, body);
  }

  /**
   * Checks a tier condition (CEL over `args`) as a save would and evaluates it on example args: the console's policy
   * editor asks here as the admin types, so the server stays the one CEL evaluator. Reads and writes nothing.
   */
  @Post('cel-check')
  @ApiOkResponse({ type: CelCheckResponse })
  @HttpCode(200)
  celCheck(@Body() body: CelCheckDto): CelCheckResponse {
    return tryTierCondition(body.expression, body.args ?? {});
  }
}
