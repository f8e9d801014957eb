import { ApiOkResponse } from '@nestjs/swagger';
import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '@warden/auth';
import { ConfirmationService } from './confirmation.service.js';
import { ConfirmationVotesStore } from './confirmation-votes.store.js';
import { confirmationView } from './confirmation.types.js';
import { DecisionBody, ListConfirmationsQuery } from './dto/confirmation.dto.js';
import { ConfirmationResponse } from './dto/confirmation.response.js';

/** The built-in inbox: the caller's org's approval requests, and decisions on them (API.md "Confirmations"). */
@Controller('confirmations')
export class ConfirmationsController {
  constructor(
    private readonly confirmations: ConfirmationService,
    private readonly votes: ConfirmationVotesStore,
  ) {}

  @Get()
  @ApiOkResponse({ type: [ConfirmationResponse] })
  async list(@CurrentPrincipal() p: Principal, @Query() query: ListConfirmationsQuery): Promise<Record<string, unknown>[]> {
    const rows = await this.confirmations.list(p.orgId, { status: query.status, limit: query.limit });
    return rows.map(confirmationView);
  }

  @Get(':id')
  @ApiOkResponse({ type: ConfirmationResponse })
  async get(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<Record<string, unknown>> {
    const row = await this.confirmations.get(p.orgId, id);
    // Each person's decision: resolved user, the chat identity used, the policy and tier that applied.
    return { ...confirmationView(row), votes: await this.votes.list(row.id) };
  }

  @Post(':id/decision')
  @ApiOkResponse({ type: ConfirmationResponse })
  @HttpCode(200)
  async decide(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() body: DecisionBody): Promise<Record<string, unknown>> {
    const row = await this.confirmations.decide({
      orgId: p.orgId,
      confirmationId: id,
      decision: body.decision,
      reason: body.reason,
      args: body.args,
      actor: { userId: p.userId },
    });
    return confirmationView(row);
  }
}
