import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { AgentsService } from '@warden/agents';
import { isUuid, NotFoundError } from '@warden/common';
import { Repository } from 'typeorm';
import type { CreateEvalDto } from './dto/create-eval.dto.js';
import { EvalDriver } from './eval-driver.js';
import { EvalRun, type EvalCase } from './eval.entity.js';

/**
 * The eval center: runs an agent over a list of cases on surface `eval` with the agent's hooks bypassed on purpose —
 * no gate, no cards, no waiting — and records that (`hooks: "bypassed"`) in the eval and in every run it started.
 * The org's hooks still run (HookResolver.resolveBypassed): an org policy binds evals as it binds chat. Safe by
 * construction: an eval run never sends a write, nor a call a hook asked a human about (ToolExecution simulates
 * them from the case's fixtures), and every connector call, real or simulated, is audited.
 */
@Injectable()
export class EvalsService {
  constructor(
    @InjectRepository(EvalRun) private readonly evals: Repository<EvalRun>,
    private readonly agents: AgentsService,
    private readonly driver: EvalDriver,
  ) {}

  async create(orgId: string, userId: string, dto: CreateEvalDto): Promise<EvalRun> {
    await this.agents.findWithConfig(orgId, dto.agent_id);
    const row = await this.evals.save(
      this.evals.create({
        orgId,
        userId,
        agentId: dto.agent_id,
        status: 'running',
        hooks: 'bypassed',
        reads: dto.reads ?? 'live',
        results: [],
        cases: dto.cases.map((c): EvalCase => ({
          input: c.input,
          ...(c.expect_contains ? { expect_contains: c.expect_contains } : {}),
          ...(c.expect_tool_calls
            ? {
                expect_tool_calls: c.expect_tool_calls.map((e) => ({
                  tool: e.tool,
                  ...(e.args_subset ? { args_subset: e.args_subset } : {}),
                })),
              }
            : {}),
          ...(c.fixtures ? { fixtures: c.fixtures } : {}),
        })),
      }),
    );
    // Driven detached from the request, durably: a restart continues it (EvalDriver, EvalRecovery).
    await this.driver.start(row.id);
    return row;
  }

  list(orgId: string, agentId: string | undefined, limit: number): Promise<EvalRun[]> {
    return this.evals.find({
      where: { orgId, ...(agentId ? { agentId } : {}) },
      order: { createdAt: 'DESC' },
      take: limit,
    });
  }

  async get(orgId: string, id: string): Promise<EvalRun> {
    const row = isUuid(id) ? await this.evals.findOneBy({ id, orgId }) : null;
    if (!row) throw new NotFoundError('eval', id);
    return row;
  }
}
