import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Roles, type Principal } from '@warden/auth';
import { AgentsService } from './agents.service.js';
import { AgentDto, AgentProblemsResponse, AgentValidateDto } from './dto/agent.dto.js';
import { AgentResponse } from './dto/agent.response.js';

/** Admins write agents; every member of the org may read them. */
@ApiTags('agents')
@ApiBearerAuth()
@Controller('agents')
export class AgentsController {
  constructor(private readonly agents: AgentsService) {}

  @Post()
  @ApiCreatedResponse({ type: AgentResponse })
  @Roles('admin')
  create(@CurrentPrincipal() p: Principal, @Body() dto: AgentDto) {
    return this.agents.create(p.orgId, p.userId, dto);
  }

  /** What saving this config would refuse, every problem by path; nothing is saved (the console checks as you type). */
  @Post('validate')
  @ApiOkResponse({ type: AgentProblemsResponse })
  @Roles('admin')
  @HttpCode(200)
  async validate(@CurrentPrincipal() p: Principal, @Body() dto: AgentValidateDto): Promise<AgentProblemsResponse> {
    return { problems: await this.agents.problemsOf(p.orgId, dto.model_config_json, dto.agent_id) };
  }

  @Get()
  @ApiOkResponse({ type: [AgentResponse] })
  list(@CurrentPrincipal() p: Principal) {
    return this.agents.list(p.orgId);
  }

  @Get(':id')
  @ApiOkResponse({ type: AgentResponse })
  get(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return this.agents.get(p.orgId, id);
  }

  @Put(':id')
  @ApiOkResponse({ type: AgentResponse })
  @Roles('admin')
  update(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() dto: AgentDto) {
    return this.agents.update(p.orgId, id, dto, p.userId);
  }

  @Delete(':id')
  @ApiNoContentResponse()
  @Roles('admin')
  @HttpCode(204)
  async remove(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<void> {
    await this.agents.remove(p.orgId, id, p.userId);
  }
}
