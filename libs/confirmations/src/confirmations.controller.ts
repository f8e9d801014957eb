import { ApiOkResponse } from '@nestjs/swagger';
import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '@warden/auth';
import { ForbiddenError, openEventStream, SSE_RESPONSE } from '@warden/common';
import type { Response } from 'express';
import { ConfirmationInboxStream } from './confirmation-inbox-stream.js';
import { ConfirmationService } from './confirmation.service.js';
import { ConfirmationVisibility } from './confirmation-visibility.js';
import { ConfirmationVotesStore } from './confirmation-votes.store.js';
import { confirmationView } from './confirmation.types.js';
import { DecisionBody, ListConfirmationsQuery } from './dto/confirmation.dto.js';
import { ConfirmationResponse } from './dto/confirmation.response.js';

/** The built-in inbox: the approval requests the caller may read (confirmation-visibility.ts), and decisions on them. */
@Controller('confirmations')
export class ConfirmationsController {
  constructor(
    private readonly confirmations: ConfirmationService,
    private readonly votes: ConfirmationVotesStore,
    private readonly visibility: ConfirmationVisibility,
    private readonly inbox: ConfirmationInboxStream,
  ) {}

  @Get()
  @ApiOkResponse({ type: [ConfirmationResponse] })
  async list(@CurrentPrincipal() p: Principal, @Query() query: ListConfirmationsQuery): Promise<Record<string, unknown>[]> {
    const rows = await this.visibility.list(p, { status: query.status, limit: query.limit });
    return rows.map(confirmationView);
  }

  /**
   * "Pending for me", live (SSE): `snapshot` `{ rows }` (the pending requests the approver policy lets the caller
   * approve), then `confirmation` with a row each time one of those is created, decided or expires.
   */
  @Get('stream')
  @ApiOkResponse(SSE_RESPONSE)
  async stream(@CurrentPrincipal() p: Principal, @Res() res: Response): Promise<void> {
    let seq = 0;
    let stream: ReturnType<typeof openEventStream> | undefined;
    const unsubscribe = await this.inbox.subscribe(p.orgId, p.userId, (type, data) => {
      stream ??= openEventStream(res);
      stream.send({ seq: ++seq, type, data });
    });
    if (!unsubscribe) throw new ForbiddenError('you are not a member of this organisation');
    const close = () => {
      unsubscribe();
      stream?.close();
    };
    if (res.destroyed) close();
    else res.on('close', close);
  }

  @Get(':id')
  @ApiOkResponse({ type: ConfirmationResponse })
  async get(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<Record<string, unknown>> {
    const row = await this.visibility.get(p, id);
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
      actor: { userId: p.userId },
    });
    return confirmationView(row);
  }
}
