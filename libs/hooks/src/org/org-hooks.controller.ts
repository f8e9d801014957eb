import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Roles, type Principal } from '@warden/auth';
import { EffectiveHooksResponse, OrgHooksDto, OrgHooksResponse } from '../dto/org-hooks.dto.js';
import { OrgHooksService } from './org-hooks.service.js';

@ApiTags('hooks')
@ApiBearerAuth()
@Controller()
export class OrgHooksController {
  constructor(private readonly orgHooks: OrgHooksService) {}

  @Get('org/hooks')
  @Roles('admin')
  @ApiOkResponse({ type: OrgHooksResponse })
  get(@CurrentPrincipal() p: Principal) {
    return this.orgHooks.get(p.orgId);
  }

  /**
   * Replaces the org's hooks (same schema as model_config_json.hooks); every run of every agent of the org gets them.
   */
  @Put('org/hooks')
  @Roles('admin')
  @ApiOkResponse({ type: OrgHooksResponse })
  put(@CurrentPrincipal() p: Principal, @Body() body: OrgHooksDto) {
    // The DTO's own fields as a plain record (the comment goes with the version): what is validated and stored as JSON.
    const { comment, force, ...hooks } = body;
    return this.orgHooks.put(p.orgId, p.userId, Object.fromEntries(Object.entries(hooks)), { comment, force });
  }

  @Get('agents/:id/hooks/effective')
  @ApiOkResponse({ type: EffectiveHooksResponse })
  effective(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.orgHooks.effective(p.orgId, id);
  }
}
