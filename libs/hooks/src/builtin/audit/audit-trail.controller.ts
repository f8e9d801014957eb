import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Roles, type Principal } from '@warden/auth';
import { AUDIT_EVENT_COLUMNS, AuditEventsQuery, AuditVerifier, type AuditEventFilters } from '@warden/common';
import type { Response } from 'express';
import { parseRange, sendExport } from './audit.controller.js';
import { AuditEventFilterQuery, ListAuditEventsQuery } from './dto/audit-events.dto.js';
import { AuditEventPageResponse, VerifyResponse } from './dto/audit-trail.response.js';
import { AuditRangeQuery } from './dto/list-connector-calls.dto.js';

function filters(orgId: string, q: AuditEventFilterQuery, kind: ListAuditEventsQuery['kind']): AuditEventFilters {
  const { action, entity_type: entityType, entity_id: entityId, actor, agent_id: agentId } = q;
  return { orgId, kind, action, entityType, entityId, actor, agentId, ...parseRange(q) };
}

/** The tamper-evident audit trail (hash-chained per org): its events, its configuration changes and its proof. */
@ApiTags('audit')
@ApiBearerAuth()
@Roles('admin')
@Controller('audit')
export class AuditTrailController {
  constructor(
    private readonly verifier: AuditVerifier,
    private readonly events: AuditEventsQuery,
  ) {}

  /** Recomputes the org's chain (events recorded in [from, to)) and reports the first link that does not hold. */
  @Get('verify')
  @ApiOkResponse({ type: VerifyResponse })
  verify(@CurrentPrincipal() p: Principal, @Query() q: AuditRangeQuery): Promise<VerifyResponse> {
    return this.verifier.verify(p.orgId, parseRange(q));
  }

  /** Every audit event (connector calls, configuration changes, decisions, identity links), newest first. */
  @Get('events')
  @ApiOkResponse({ type: AuditEventPageResponse })
  list(@CurrentPrincipal() p: Principal, @Query() q: ListAuditEventsQuery): Promise<AuditEventPageResponse> {
    return this.events.page(filters(p.orgId, q, q.kind), q.limit ?? 100, q.cursor);
  }

  /** Who created, changed or deleted which agent, connector, channel, workflow or org setting: before, after, diff. */
  @Get('config-events')
  @ApiOkResponse({ type: AuditEventPageResponse })
  configEvents(@CurrentPrincipal() p: Principal, @Query() q: AuditEventFilterQuery): Promise<AuditEventPageResponse> {
    return this.events.page(filters(p.orgId, q, 'config'), q.limit ?? 100, q.cursor);
  }

  /** The filtered trail in chain order as JSON Lines (default) or CSV, streamed with constant memory. */
  @Get('events/export')
  @ApiProduces('application/x-ndjson', 'text/csv')
  @ApiOkResponse({ description: 'JSON Lines or CSV, one audit event per line', schema: { type: 'string' } })
  async export(
    @CurrentPrincipal() p: Principal,
    @Query() q: ListAuditEventsQuery,
    @Res() res: Response,
  ): Promise<void> {
    await sendExport(
      res,
      q.format ?? 'jsonl',
      'audit-events',
      AUDIT_EVENT_COLUMNS,
      this.events.pages(filters(p.orgId, q, q.kind)),
    );
  }
}
