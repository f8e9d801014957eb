import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentPrincipal, Roles, type Principal } from '@warden/auth';
import { openEventStream, parseLastEventId, SSE_RESPONSE } from '@warden/common';
import type { Response } from 'express';
import { CreateWorkflowDto, StartWorkflowRunDto, UpdateWorkflowDto, ValidateWorkflowDto } from './dto/workflow.dto.js';
import { WorkflowCancel } from './engine/workflow-cancel.js';
import { WorkflowRunEvents } from './engine/workflow-run-events.js';
import { WorkflowRunner } from './engine/workflow-runner.js';
import type { Workflow, WorkflowRun } from './workflow.entity.js';
import { WorkflowsService } from './workflows.service.js';
import {
  WorkflowResponse,
  WorkflowRunResponse,
  WorkflowRunStartedResponse,
  WorkflowRunSummaryResponse,
  WorkflowToolResponse,
  WorkflowValidationResponse,
} from './dto/workflow.response.js';

/** Who builds workflows: admins, and designers (who may not change agents, hooks, connectors or org settings). */
const BUILDERS = ['admin', 'designer'];

const workflowView = (w: Workflow) => ({
  id: w.id,
  name: w.name,
  definition: w.definition,
  created_at: w.createdAt,
  updated_at: w.updatedAt,
});
const runView = (r: WorkflowRun) => ({
  id: r.id,
  workflow_id: r.workflowId,
  status: r.status,
  inputs: r.inputs,
  nodes: r.nodes,
  error: r.error,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});

@ApiTags('workflows')
@ApiBearerAuth()
@Controller()
export class WorkflowsController {
  constructor(
    private readonly workflows: WorkflowsService,
    private readonly runner: WorkflowRunner,
    private readonly runEvents: WorkflowRunEvents,
    private readonly cancels: WorkflowCancel,
  ) {}

  @Post('workflows')
  @ApiCreatedResponse({ type: WorkflowResponse })
  @Roles(...BUILDERS)
  async create(@CurrentPrincipal() p: Principal, @Body() body: CreateWorkflowDto) {
    return workflowView(await this.workflows.create(p.orgId, p.userId, body.name, body.definition));
  }

  /** The problems saving this definition would report (none: it would save); nothing is stored. */
  @Post('workflows/validate')
  @ApiOkResponse({ type: WorkflowValidationResponse })
  @Roles(...BUILDERS)
  @HttpCode(200)
  async validate(
    @CurrentPrincipal() p: Principal,
    @Body() body: ValidateWorkflowDto,
  ): Promise<WorkflowValidationResponse> {
    return { problems: await this.workflows.problems(p.orgId, body.definition) };
  }

  /** The connector and MCP tools a CONNECTOR node may call, with their parameters (no connector secrets). */
  @Get('workflow-tools')
  @ApiOkResponse({ type: [WorkflowToolResponse] })
  @Roles(...BUILDERS)
  tools(@CurrentPrincipal() p: Principal): Promise<WorkflowToolResponse[]> {
    return this.workflows.callableTools(p.orgId);
  }

  @Get('workflows')
  @ApiOkResponse({ type: [WorkflowResponse] })
  async list(@CurrentPrincipal() p: Principal) {
    return (await this.workflows.list(p.orgId)).map(workflowView);
  }

  @Get('workflows/:id')
  @ApiOkResponse({ type: WorkflowResponse })
  async get(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return workflowView(await this.workflows.get(p.orgId, id));
  }

  @Put('workflows/:id')
  @ApiOkResponse({ type: WorkflowResponse })
  @Roles(...BUILDERS)
  async update(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() body: UpdateWorkflowDto) {
    return workflowView(await this.workflows.update(p.orgId, id, body, p.userId));
  }

  @Delete('workflows/:id')
  @ApiNoContentResponse()
  @Roles(...BUILDERS)
  @HttpCode(204)
  async remove(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    await this.workflows.remove(p.orgId, id, p.userId);
  }

  @Post('workflows/:id/runs')
  @ApiAcceptedResponse({ type: WorkflowRunStartedResponse })
  @HttpCode(202)
  async start(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() body: StartWorkflowRunDto) {
    const run = await this.runner.start(p.orgId, p.userId, id, body.inputs ?? {});
    return { run_id: run.id, status: run.status };
  }

  /** The workflow's runs, newest first: all of them for an admin, the caller's own for anyone else. */
  @Get('workflows/:id/runs')
  @ApiOkResponse({ type: [WorkflowRunSummaryResponse] })
  async runs(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<WorkflowRunSummaryResponse[]> {
    const wf = await this.workflows.get(p.orgId, id);
    return (await this.runner.listVisible(p, wf.id)).map((r) => ({
      id: r.id,
      status: r.status,
      user_id: r.userId,
      error: r.error,
      created_at: r.createdAt,
      updated_at: r.updatedAt,
    }));
  }

  @Get('workflow-runs/:id')
  @ApiOkResponse({ type: WorkflowRunResponse })
  async run(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return runView(await this.runner.getVisible(p, id));
  }

  /** Ends the run `cancelled` (the runs of its nodes too: their approvals expire); 409 once it has ended. */
  @Post('workflow-runs/:id/cancel')
  @ApiOkResponse({ type: WorkflowRunResponse })
  @HttpCode(200)
  async cancel(@CurrentPrincipal() p: Principal, @Param('id') id: string) {
    return runView(await this.cancels.cancel(p, id));
  }

  /** The run's events from the start (or after Last-Event-ID), then live until `done`. */
  @Get('workflow-runs/:id/events')
  @ApiOkResponse(SSE_RESPONSE)
  async events(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Res() res: Response,
    @Headers('last-event-id') lastEventId?: string,
    @Query('last_event_id') lastEventIdQuery?: string,
  ): Promise<void> {
    const after = parseLastEventId(lastEventId, lastEventIdQuery);
    const run = await this.runner.getVisible(p, id);
    const stream = openEventStream(res);
    const stop = new AbortController();
    res.on('close', () => stop.abort());
    try {
      await this.runEvents.follow(run.id, after, stream.send, stop.signal);
    } finally {
      stream.close();
    }
  }
}
