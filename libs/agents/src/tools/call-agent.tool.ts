import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AgentsService } from '../agents/agents.service.js';
import { RunExecutor } from '../engine/run-executor.js';
import { BuiltinTool, type ToolRunContext } from './builtin-tool.js';

/** How deep delegation may nest (caller -> delegate -> delegate ...). */
export const MAX_DELEGATION_DEPTH = 3;

/**
 * `call_agent`: hands a task to one of the caller's `delegates`. The delegate runs as a child run on surface
 * `delegate` with its OWN hooks (built from its own model_config_json, with the gate and its own
 * require_confirmation_for_all), its events nested in the caller's stream; its answer is the observation.
 */
@Injectable()
export class CallAgentTool extends BuiltinTool {
  readonly name = 'call_agent';
  readonly description = 'Delegate a task to another agent (one of your delegates) and get its answer.';
  readonly parameters = {
    type: 'object',
    properties: {
      agent_id: { type: 'string', description: 'id of the delegate agent' },
      task: { type: 'string', description: 'what the delegate should do' },
    },
    required: ['agent_id', 'task'],
  };
  /** Delegation itself changes nothing; the delegate's own tool calls are gated by its own hooks. */
  readonly write = false;

  constructor(
    private readonly agents: AgentsService,
    private readonly executor: RunExecutor,
    private readonly dataSource: DataSource,
  ) {
    super();
  }

  async execute(args: Record<string, unknown>, ctx: ToolRunContext): Promise<string> {
    const agentId = args.agent_id;
    const task = args.task;
    if (typeof agentId !== 'string' || typeof task !== 'string' || task.trim() === '') {
      throw new Error('call_agent needs { agent_id: string, task: string }');
    }
    const { config } = await this.agents.findWithConfig(ctx.orgId, ctx.agentId);
    if (!config.delegates.includes(agentId)) throw new Error(`agent ${agentId} is not one of this agent's delegates`);
    const chain = await this.agentChain(ctx.runId);
    if (chain.includes(agentId)) throw new Error(`delegation cycle: ${[...chain.reverse(), agentId].join(' -> ')}`);
    const depth = chain.length; // the caller's run and its ancestors
    if (depth > MAX_DELEGATION_DEPTH) throw new Error(`delegation depth limit (${MAX_DELEGATION_DEPTH}) reached`);
    // A delegate whose hooks cannot be built refuses: start() throws and the caller sees the error observation.
    const child = await this.executor.start({
      orgId: ctx.orgId,
      userId: ctx.userId,
      agentId,
      message: task,
      surface: 'delegate',
      parentRunId: ctx.runId,
      parentCallId: ctx.callId,
      // A delegate of an eval run is an eval run too: its writes are simulated, never sent.
      ...(ctx.eval ? { eval: ctx.eval } : {}),
    });
    const outcome = await child.completion;
    if (outcome.status !== 'completed')
      throw new Error(`delegate run ${outcome.runId} ended ${outcome.status}: ${outcome.error ?? 'no answer'}`);
    return outcome.answer ?? '';
  }

  /** Agent ids from this run up through its parents (delegation and DAG steps). */
  private async agentChain(runId: string): Promise<string[]> {
    const rows: Array<{ agent_id: string }> = await this.dataSource.query(
      `WITH RECURSIVE chain AS (
         SELECT id, agent_id, parent_run_id, surface FROM agent_runs WHERE id = $1
         UNION ALL SELECT r.id, r.agent_id, r.parent_run_id, r.surface FROM agent_runs r
                     JOIN chain c ON r.id = c.parent_run_id
       ) SELECT agent_id FROM chain WHERE surface <> 'dag'`,
      [runId],
    );
    return rows.map((r) => r.agent_id);
  }
}
