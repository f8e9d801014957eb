import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Roles, type Principal } from '@warden/auth';
import type { PolicySubject } from '@warden/hooks';
import { agentPolicy } from '../agents/agent-policy.js';
import {
  ShadowDeployDto,
  ShadowDiscardedResponse,
  ShadowPromoteDto,
  ShadowPromotedResponse,
  ShadowReportResponse,
  ShadowResponse,
} from './dto/shadow.dto.js';
import { ShadowService } from './shadow.service.js';

const orgHooks = (p: Principal): PolicySubject => ({ orgId: p.orgId, type: 'org_hooks', id: p.orgId });

/**
 * Shadow policies (admins only: a report shows other people's calls): `…/shadow` deploys and shows, `…/shadow-report`
 * compares, `…/shadow/promote` makes it live, `…/shadow/discard` ends it — for an agent and for the org hooks.
 */
@ApiTags('policies')
@ApiBearerAuth()
@Controller()
@Roles('admin')
export class ShadowController {
  constructor(private readonly shadows: ShadowService) {}

  @Post('agents/:id/shadow')
  @ApiCreatedResponse({ type: ShadowResponse })
  deployAgent(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() body: ShadowDeployDto) {
    return this.shadows.deploy(agentPolicy(p.orgId, id), body.config, p.userId, body.comment);
  }

  @Get('agents/:id/shadow')
  @ApiOkResponse({ type: ShadowResponse })
  getAgent(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.shadows.get(agentPolicy(p.orgId, id));
  }

  @Get('agents/:id/shadow-report')
  @ApiOkResponse({ type: ShadowReportResponse })
  reportAgent(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.shadows.report(agentPolicy(p.orgId, id));
  }

  @Post('agents/:id/shadow/promote')
  @HttpCode(200)
  @ApiOkResponse({ type: ShadowPromotedResponse })
  promoteAgent(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() body: ShadowPromoteDto) {
    return this.shadows.promote(agentPolicy(p.orgId, id), p.userId, body);
  }

  @Post('agents/:id/shadow/discard')
  @HttpCode(200)
  @ApiOkResponse({ type: ShadowDiscardedResponse })
  discardAgent(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.shadows.discard(agentPolicy(p.orgId, id), p.userId);
  }

  @Post('org/hooks/shadow')
  @ApiCreatedResponse({ type: ShadowResponse })
  deployOrg(@CurrentPrincipal() p: Principal, @Body() body: ShadowDeployDto) {
    return this.shadows.deploy(orgHooks(p), body.config, p.userId, body.comment);
  }

  @Get('org/hooks/shadow')
  @ApiOkResponse({ type: ShadowResponse })
  getOrg(@CurrentPrincipal() p: Principal) {
    return this.shadows.get(orgHooks(p));
  }

  @Get('org/hooks/shadow-report')
  @ApiOkResponse({ type: ShadowReportResponse })
  reportOrg(@CurrentPrincipal() p: Principal) {
    return this.shadows.report(orgHooks(p));
  }

  @Post('org/hooks/shadow/promote')
  @HttpCode(200)
  @ApiOkResponse({ type: ShadowPromotedResponse })
  promoteOrg(@CurrentPrincipal() p: Principal, @Body() body: ShadowPromoteDto) {
    return this.shadows.promote(orgHooks(p), p.userId, body);
  }

  @Post('org/hooks/shadow/discard')
  @HttpCode(200)
  @ApiOkResponse({ type: ShadowDiscardedResponse })
  discardOrg(@CurrentPrincipal() p: Principal) {
    return this.shadows.discard(orgHooks(p), p.userId);
  }
}
