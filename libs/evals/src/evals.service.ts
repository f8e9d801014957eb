import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { AgentsService, RunEventsService, RunExecutor } from '@warden/agents';
import { isUuid, NotFoundError } from '@warden/common';
import { Repository } from 'typeorm';
import type { CreateEvalDto } from './dto/create-eval.dto.js';
import { EvalRun, type EvalCaseResult } from './eval.entity.js';

/**
 * The eval center: runs an agent over a list of cases on surface `eval` with hooks bypassed on purpose — no gate,
 * no cards, no waiting — and records that (`hooks: "bypassed"`) in the eval and in every run it started.
 */
@Injectable()
export class EvalsService {
  private readonly logger = new Logger(EvalsService.name);

  constructor(
    @InjectRepository(EvalRun) private readonly evals: Repository<EvalRun>,
    private readonly agents: AgentsService,
    private readonly executor: RunExecutor,
    private readonly runEvents: RunEventsService,
  ) {}

  async create(orgId: string, userId: string, dto: CreateEvalDto): Promise<EvalRun> {
    await this.agents.findWithConfig(orgId, dto.agent_id);
    const row = await this.evals.save(this.evals.create({
      orgId, userId, agentId: dto.agent_id, status: 'running', hooks: 'bypassed', results: [],
      cases: dto.cases.map((c) => ({ input: c.input, ...(c.expect_contains ? { expect_contains: c.expect_contains } : {}) })),
    }));
    void this.execute(row).catch((err) => this.logger.error({ err, evalId: row.id }, 'eval failed'));
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
          orgId: row.orgId, userId: row.userId, agentId: row.agentId, message: c.input, surface: 'eval', bypassHooks: true,
        });
        const outcome = await started.completion;
        const toolCalls = (await this.runEvents.list(started.runId, 0, ['tool_call'])).map((e) => ({ tool: String(e.data.tool), args: (e.data.args ?? {}) as Record<string, unknown> }));
        const output = outcome.answer;
        const passed = outcome.status === 'completed' && (!c.expect_contains || (output ?? '').includes(c.expect_contains));
        results.push({ input: c.input, output, passed, tool_calls: toolCalls, run_id: started.runId, ...(outcome.error ? { error: outcome.error } : {}) });
        await this.record(row.id, 'running', results, null);
      }
      await this.record(row.id, 'completed', results, null);
    } catch (err) {
      await this.record(row.id, 'failed', results, (err as Error).message);
    }
  }

  private async record(id: string, status: EvalRun['status'], results: EvalCaseResult[], error: string | null): Promise<void> {
    await this.evals.query(`UPDATE evals SET status = $2, results = $3, error = $4, updated_at = now() WHERE id = $1`, [id, status, JSON.stringify(results), error]);
  }
}
