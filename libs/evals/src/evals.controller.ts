import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Roles, type Principal } from '@warden/auth';
import { CreateEvalDto, ListEvalsQuery } from './dto/create-eval.dto.js';
import type { EvalRun } from './eval.entity.js';
import { EvalsService } from './evals.service.js';
import { EvalResponse, EvalStartedResponse, EvalSummaryResponse } from './dto/eval.response.js';

const summary = (e: EvalRun): EvalSummaryResponse => ({
  id: e.id,
  agent_id: e.agentId,
  status: e.status,
  hooks: e.hooks,
  reads: e.reads,
  error: e.error,
  passed: e.results.filter((r) => r.passed).length,
  done: e.results.length,
  total: e.cases.length,
  created_at: e.createdAt,
});
const view = (e: EvalRun): EvalResponse => Object.assign(summary(e), { results: e.results });

@ApiTags('evals')
@ApiBearerAuth()
@Controller('evals')
export class EvalsController {
  constructor(private readonly evals: EvalsService) {}

  /** Admins only: an eval runs an agent with its hooks bypassed (its writes are simulated, never sent). */
  @Post()
  @Roles('admin')
  @ApiAcceptedResponse({ type: EvalStartedResponse })
  @HttpCode(202)
  async create(@CurrentPrincipal() p: Principal, @Body() body: CreateEvalDto): Promise<EvalStartedResponse> {
    const row = await this.evals.create(p.orgId, p.userId, body);
    return { id: row.id, status: row.status, hooks: row.hooks };
  }

  /** Admins only: the org's evals, newest first (optionally one agent's), with their pass counts. */
  @Get()
  @Roles('admin')
  @ApiOkResponse({ type: [EvalSummaryResponse] })
  async list(@CurrentPrincipal() p: Principal, @Query() q: ListEvalsQuery): Promise<EvalSummaryResponse[]> {
    return (await this.evals.list(p.orgId, q.agent_id, q.limit ?? 50)).map(summary);
  }

  /** Admins only, like starting one: an eval's cases and the agent's answers are an admin's test material. */
  @Get(':id')
  @Roles('admin')
  @ApiOkResponse({ type: EvalResponse })
  async get(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<EvalResponse> {
    return view(await this.evals.get(p.orgId, id));
  }
}
