import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Roles, type Principal } from '@warden/auth';
import {
  PolicyDiffResponse,
  PolicyRollbackDto,
  AgentPolicyVersionResponse,
  PolicyVersionResponse,
  PolicyVersions,
  versionAs,
  versionParam,
} from '@warden/hooks';
import { agentPolicy } from './agent-policy.js';
import { AgentsService } from './agents.service.js';
import { AgentResponse } from './dto/agent.response.js';

/**
 * The history of an agent's policy (`model_config_json.hooks`, `.confirmation`, `.require_confirmation_for_all`):
 * members read it like the agent itself; admins roll it back.
 */
@ApiTags('agents')
@ApiBearerAuth()
@Controller('agents/:id')
export class AgentVersionsController {
  constructor(
    private readonly agents: AgentsService,
    private readonly versions: PolicyVersions,
  ) {}

  @Get('versions')
  @ApiOkResponse({ type: [PolicyVersionResponse] })
  async list(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    await this.agents.find(p.orgId, id);
    return this.versions.list(agentPolicy(p.orgId, id));
  }

  @Get('versions/diff')
  @ApiOkResponse({ type: PolicyDiffResponse })
  async diff(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Query('from') from?: string,
    @Query('to') to?: string,
  ) {
    const [a, b] = [versionParam(from, 'from'), versionParam(to, 'to')];
    await this.agents.find(p.orgId, id);
    return this.versions.diff(agentPolicy(p.orgId, id), a, b);
  }

  @Get('versions/:n')
  @ApiOkResponse({ type: AgentPolicyVersionResponse })
  async get(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Param('n') n: string) {
    const version = versionParam(n, 'version');
    await this.agents.find(p.orgId, id);
    return versionAs(await this.versions.get(agentPolicy(p.orgId, id), version), 'model_config_json');
  }

  /** Puts back the policy of an earlier version, as a new version (validated and audited like PUT /api/agents/:id). */
  @Post('rollback')
  @Roles('admin')
  @HttpCode(200)
  @ApiOkResponse({ type: AgentResponse })
  rollback(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() body: PolicyRollbackDto) {
    return this.agents.rollbackPolicy(p.orgId, id, body.version, p.userId, {
      comment: body.comment,
      force: body.force,
    });
  }
}
