import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { AgentsService, RunExecutor, ToolCallRunner } from '@warden/agents';
import { isUuid, NotFoundError } from '@warden/common';
import { Repository } from 'typeorm';
import type { CreateEvalDto } from './dto/create-eval.dto.js';
import { unmetExpectations } from './eval-expectations.js';
import { EvalRun, type EvalCase, type EvalCaseResult } from './eval.entity.js';

/**
 * The eval center: runs an agent over a list of cases on surface `eval` with the agent's hooks bypassed on purpose —
 * no gate, no cards, no waiting — and records that (`hooks: "bypassed"`) in the eval and in every run it started.
 * The org's hooks still run (HookResolver.resolveBypassed): an org policy binds evals as it binds chat. Safe by
 * construction: an eval run never sends a write, nor a call a hook asked a human about (ToolExecution simulates
 * them from the case's fixtures), and every connector call, real or simulated, is audited.
 */
@Injectable()
export class EvalsService {
  private readonly logger = new Logger(EvalsService.name);

  constructor(
    @InjectRepository(EvalRun) private readonly evals: Repository<EvalRun>,
    private readonly agents: AgentsService,
    private readonly executor: RunExecutor,
    private readonly toolCalls: ToolCallRunner,
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
    void this.execute(row).catch((err: unknown) => this.logger.error({ err, evalId: row.id }, 'eval failed'));
    return row;
  }

  async get(orgId: string, id: string): Promise<EvalRun> {
    const row = isUuid(id) ? await this.evals.findOneBy({ id, orgId }) : null;
    if (!row) throw new NotFoundError('eval', id);
    return row;
  }

  /** Cases run one after another so that an eval never floods the model endpoint. */
  private async execute(row: EvalRun): Promise<void> {
    const results: EvalCaseResult[] = [];
    try {
      for (const c of row.cases) {
        const started = await this.executor.start({
          orgId: row.orgId,
          userId: row.userId,
          agentId: row.agentId,
          message: c.input,
          surface: 'eval',
          eval: { reads: row.reads, ...(c.fixtures ? { fixtures: c.fixtures } : {}) },
        });
        const outcome = await started.completion;
        const toolCalls = (await this.toolCalls.listForRun(started.runId)).map((t) => ({
          tool: t.tool,
          args: t.args,
          simulated: t.simulated,
          status: t.status,
        }));
        const failures = unmetExpectations(c, outcome, toolCalls);
        results.push({
          input: c.input,
          output: outcome.answer,
          passed: failures.length === 0,
          ...(failures.length ? { failures } : {}),
          tool_calls: toolCalls,
          run_id: started.runId,
          ...(outcome.error ? { error: outcome.error } : {}),
        });
        await this.record(row.id, 'running', results, null);
      }
      await this.record(row.id, 'completed', results, null);
    } catch (err) {
      await this.record(row.id, 'failed', results, (err as Error).message);
    }
  }

  private async record(id: string, status: EvalRun['status'], results: EvalCaseResult[], error: string | null): Promise<void> {
    await this.evals.query(`UPDATE evals SET status = $2, results = $3, error = $4, updated_at = now() WHERE id = $1`, [
      id,
      status,
      JSON.stringify(results),
      error,
    ]);
  }
}
