import { Controller, Get, Query } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Roles, type Principal } from '@warden/auth';
import { Repository, type FindOptionsWhere } from 'typeorm';
import { ConnectorCallLog } from './connector-call-log.entity.js';
import { ListConnectorCallsQuery } from './dto/list-connector-calls.dto.js';
import { ConnectorCallResponse } from './dto/connector-call.response.js';

const view = (r: ConnectorCallLog) => ({
  id: r.id,
  org_id: r.orgId,
  agent_id: r.agentId,
  user_id: r.userId,
  run_id: r.runId,
  call_id: r.callId,
  surface: r.surface,
  tool: r.tool,
  connector_id: r.connectorId,
  connector: r.connectorName,
  action: r.action,
  method: r.method,
  url: r.url,
  args_digest: r.argsDigest,
  args: r.args,
  status: r.status,
  duration_ms: r.durationMs,
  success: r.success,
  error: r.error,
  blocked_by: r.blockedBy,
  simulated: r.simulated,
  approved_by: r.approvedBy,
  created_at: r.createdAt,
});

@ApiTags('audit')
@ApiBearerAuth()
@Controller('audit')
export class AuditController {
  constructor(@InjectRepository(ConnectorCallLog) private readonly logs: Repository<ConnectorCallLog>) {}

  /** The org's connector call log, newest first (admins only: rows name users and, when stored, args). */
  @Get('connector-calls')
  @ApiOkResponse({ type: [ConnectorCallResponse] })
  @Roles('admin')
  async connectorCalls(@CurrentPrincipal() p: Principal, @Query() q: ListConnectorCallsQuery) {
    const where: FindOptionsWhere<ConnectorCallLog> = { orgId: p.orgId };
    if (q.agent_id) where.agentId = q.agent_id;
    if (q.run_id) where.runId = q.run_id;
    const rows = await this.logs.find({ where, order: { createdAt: 'DESC', id: 'DESC' }, take: q.limit ?? 100 });
    return rows.map(view);
  }
}
