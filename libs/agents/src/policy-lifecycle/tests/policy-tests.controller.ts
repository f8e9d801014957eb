import { Body, Controller, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Roles, type Principal } from '@warden/auth';
import type { PolicySubject } from '@warden/hooks';
import { agentPolicy } from '../../agents/agent-policy.js';
import {
  PolicyTestRunDto,
  PolicyTestRunResponse,
  PolicyTestsDto,
  PolicyTestsResponse,
} from '../dto/policy-tests.dto.js';
import { PolicyTestsService } from './policy-tests.service.js';

const orgHooks = (p: Principal): PolicySubject => ({ orgId: p.orgId, type: 'org_hooks', id: p.orgId });

/**
 * Policy tests (admins): `…/tests` reads and replaces an agent's or the org hooks' test cases, `…/test` runs them
 * against a candidate (or the live policy) with the dry-run engine. Saves of a policy run them too.
 */
@ApiTags('policies')
@ApiBearerAuth()
@Controller()
@Roles('admin')
export class PolicyTestsController {
  constructor(private readonly tests: PolicyTestsService) {}

  @Get('agents/:id/tests')
  @ApiOkResponse({ type: PolicyTestsResponse })
  getAgent(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.tests.get(agentPolicy(p.orgId, id));
  }

  @Put('agents/:id/tests')
  @ApiOkResponse({ type: PolicyTestsResponse })
  replaceAgent(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() body: PolicyTestsDto) {
    return this.tests.replace(agentPolicy(p.orgId, id), body.cases, p.userId);
  }

  @Post('agents/:id/test')
  @HttpCode(200)
  @ApiOkResponse({ type: PolicyTestRunResponse })
  runAgent(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() body: PolicyTestRunDto) {
    return this.tests.run(agentPolicy(p.orgId, id), body);
  }

  @Get('org/hooks/tests')
  @ApiOkResponse({ type: PolicyTestsResponse })
  getOrg(@CurrentPrincipal() p: Principal) {
    return this.tests.get(orgHooks(p));
  }

  @Put('org/hooks/tests')
  @ApiOkResponse({ type: PolicyTestsResponse })
  replaceOrg(@CurrentPrincipal() p: Principal, @Body() body: PolicyTestsDto) {
    return this.tests.replace(orgHooks(p), body.cases, p.userId);
  }

  @Post('org/hooks/test')
  @HttpCode(200)
  @ApiOkResponse({ type: PolicyTestRunResponse })
  runOrg(@CurrentPrincipal() p: Principal, @Body() body: PolicyTestRunDto) {
    return this.tests.run(orgHooks(p), body);
  }
}
