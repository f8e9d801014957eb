import { ApiOkResponse } from '@nestjs/swagger';
import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '@warden/auth';
import { ConflictError, ForbiddenError, openEventStream, ServiceUnavailableError, SSE_RESPONSE } from '@warden/common';
import { isDroppedDatabaseConnection } from '@warden/database';
import type { Response } from 'express';
import { ConfirmationInboxStream } from './confirmation-inbox-stream.js';
import { ConfirmationService } from './confirmation.service.js';
import { ConfirmationVisibility } from './confirmation-visibility.js';
import { ConfirmationVotesStore } from './confirmation-votes.store.js';
import { ConfirmationStatus, confirmationView } from './confirmation.types.js';
import { DecisionBody, ListConfirmationsQuery, ReassignBody } from './dto/confirmation.dto.js';
import { ConfirmationReassignment } from './escalation/confirmation-reassignment.js';
import { EscalationStore } from './escalation/escalation.store.js';
import { ConfirmationResponse } from './dto/confirmation.response.js';
import { standingApprovalView } from './standing/standing-approval.store.js';
import { StandingApprovals } from './standing/standing-approvals.js';

/**
 * The built-in inbox: the approval requests the caller may read (confirmation-visibility.ts), and decisions on them.
 */
@Controller('confirmations')
export class ConfirmationsController {
  constructor(
    private readonly confirmations: ConfirmationService,
    private readonly votes: ConfirmationVotesStore,
    private readonly visibility: ConfirmationVisibility,
    private readonly inbox: ConfirmationInboxStream,
    private readonly standing: StandingApprovals,
    private readonly escalations: EscalationStore,
    private readonly reassignment: ConfirmationReassignment,
  ) {}

  /** Hands a pending request to a named user (README "Reminders, escalation, reassignment"). */
  @Post(':id/reassign')
  @ApiOkResponse({ type: ConfirmationResponse })
  @HttpCode(200)
  async reassign(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Body() body: ReassignBody,
  ): Promise<Record<string, unknown>> {
    const row = await this.reassignment.reassign({
      orgId: p.orgId,
      confirmationId: id,
      actorUserId: p.userId,
      toSub: body.to,
      reason: body.reason,
    });
    return confirmationView(row);
  }

  @Get()
  @ApiOkResponse({ type: [ConfirmationResponse] })
  async list(
    @CurrentPrincipal() p: Principal,
    @Query() query: ListConfirmationsQuery,
  ): Promise<Array<Record<string, unknown>>> {
    const rows = await this.visibility.list(p, { status: query.status, limit: query.limit });
    return rows.map(confirmationView);
  }

  /**
   * "Pending for me", live (SSE): `snapshot` `{ rows }` (the pending requests the approver policy lets the caller
   * approve), then `confirmation` with a row each time one of those is created, decided or expires, and `withdrawn`
   * `{ id }` when one it showed is no longer the caller's to decide (reassigned to someone else).
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
    const standing = await this.standing.byConfirmation(row.id);
    const history = (await this.escalations.history(row.id)).map((e) => ({
      kind: e.kind,
      detail: e.detail,
      by: e.byName,
      by_user_id: e.byUserId,
      at: e.at.toISOString(),
    }));
    return {
      ...confirmationView(row),
      votes: await this.votes.list(row.id),
      standing_approval: standing ? standingApprovalView(standing) : null,
      history,
    };
  }

  @Post(':id/decision')
  @ApiOkResponse({ type: ConfirmationResponse })
  @HttpCode(200)
  async decide(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Body() body: DecisionBody,
  ): Promise<Record<string, unknown>> {
    const row = await this.confirmations
      .decide({
        orgId: p.orgId,
        confirmationId: id,
        decision: body.decision,
        reason: body.reason,
        args: body.args,
        answer: body.answer,
        standing: body.standing && {
          when: body.standing.when,
          maxCalls: body.standing.max_calls,
          minutes: body.standing.minutes,
        },
        actor: { userId: p.userId },
      })
      .catch((err: unknown) => this.failClosed(err, p.orgId, id));
    const standing = body.standing ? await this.standing.byConfirmation(row.id) : null;
    return { ...confirmationView(row), standing_approval: standing ? standingApprovalView(standing) : null };
  }

  /**
   * A connection dropped mid-decision decides nothing: the vote rolled back, or it was counted and its settlement
   * did not commit (the voter's next decision settles it). Only if the row now reads decided (the drop hit the
   * audit write after the settlement committed) is the answer that of any later decision: already decided.
   */
  private async failClosed(err: unknown, orgId: string, id: string): Promise<never> {
    if (!isDroppedDatabaseConnection(err)) throw err;
    const now = await this.confirmations.get(orgId, id).catch(() => null);
    if (now && now.status !== ConfirmationStatus.Pending)
      throw new ConflictError(`confirmation ${id} is already ${now.status}`, { status: now.status });
    throw new ServiceUnavailableError(
      'the database connection dropped while recording the decision; nothing was decided: please try again',
    );
  }
}
