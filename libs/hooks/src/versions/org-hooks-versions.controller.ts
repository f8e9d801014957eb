import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Roles, type Principal } from '@warden/auth';
import { OrgHooksResponse } from '../dto/org-hooks.dto.js';
import { OrgHooksService } from '../org/org-hooks.service.js';
import {
  PolicyDiffResponse,
  PolicyRollbackDto,
  OrgHooksVersionResponse,
  PolicyVersionResponse,
} from './dto/policy-version.dto.js';
import { PolicyVersions, versionAs, versionParam, type PolicySubject } from './policy-versions.js';

const orgHooks = (p: Principal): PolicySubject => ({ orgId: p.orgId, type: 'org_hooks', id: p.orgId });

/** The history of the org's hooks (admins only, like the hooks themselves): versions, diffs, rollback. */
@ApiTags('hooks')
@ApiBearerAuth()
@Controller('org/hooks')
@Roles('admin')
export class OrgHooksVersionsController {
  constructor(
    private readonly versions: PolicyVersions,
    private readonly service: OrgHooksService,
  ) {}

  @Get('versions')
  @ApiOkResponse({ type: [PolicyVersionResponse] })
  list(@CurrentPrincipal() p: Principal) {
    return this.versions.list(orgHooks(p));
  }

  @Get('versions/diff')
  @ApiOkResponse({ type: PolicyDiffResponse })
  diff(@CurrentPrincipal() p: Principal, @Query('from') from?: string, @Query('to') to?: string) {
    return this.versions.diff(orgHooks(p), versionParam(from, 'from'), versionParam(to, 'to'));
  }

  @Get('versions/:n')
  @ApiOkResponse({ type: OrgHooksVersionResponse })
  async get(@CurrentPrincipal() p: Principal, @Param('n') n: string) {
    return versionAs(await this.versions.get(orgHooks(p), versionParam(n, 'version')), 'hooks');
  }

  /** Puts back the hooks of an earlier version, as a new version (validated and audited like PUT /api/org/hooks). */
  @Post('rollback')
  @HttpCode(200)
  @ApiOkResponse({ type: OrgHooksResponse })
  rollback(@CurrentPrincipal() p: Principal, @Body() body: PolicyRollbackDto) {
    return this.service.rollback(p.orgId, p.userId, body.version, { comment: body.comment, force: body.force });
  }
}
