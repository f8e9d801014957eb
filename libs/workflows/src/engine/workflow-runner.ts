import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { evaluate as evaluateCel } from '@marcbachmann/cel-js';
import { RunEventsService, RunExecutor, RunsService } from '@warden/agents';
import { NotFoundError } from '@warden/common';
import { DataSource, Repository } from 'typeorm';
import { renderTemplate, type WorkflowDefinition, type WorkflowNode } from '../workflow-definition.js';
import { WorkflowRun, type NodeState } from '../workflow.entity.js';
import { WorkflowsService } from '../workflows.service.js';

/** How often a running AGENT node looks at its agent run (to mirror `waiting` for approvals onto the workflow). */
const AGENT_WATCH_MS = 250;

/**
 * Executes workflow runs: nodes in dependency order, independent branches in parallel. Every node's state is written
 * to `workflow_runs.nodes` before and after it runs, and every step is an event in `workflow_run_events`.
 * AGENT nodes run the agent on surface `workflow` through the run engine, so the agent's own hooks and the approval
 * gate apply exactly as in chat.
 */
@Injectable()
export class WorkflowRunner implements OnApplicationShutdown {
  private readonly logger = new Logger(WorkflowRunner.name);
  private readonly abort = new AbortController();
  private readonly active = new Set<Promise<void>>();

  constructor(
    @InjectRepository(WorkflowRun) private readonly runs: Repository<WorkflowRun>,
    private readonly dataSource: DataSource,
    private readonly workflows: WorkflowsService,
    private readonly executor: RunExecutor,
    private readonly agentRuns: RunsService,
    private readonly runEvents: RunEventsService,
  ) {}

  async start(orgId: string, userId: string, workflowId: string, inputs: Record<string, unknown>): Promise<WorkflowRun> {
    const wf = await this.workflows.get(orgId, workflowId);
    const nodes: Record<string, NodeState> = Object.fromEntries(wf.definition.nodes.map((n) => [n.id, { status: 'pending' as const }]));
    const run = await this.runs.save(this.runs.create({ orgId, userId, workflowId, status: 'running', inputs, nodes, error: null }));
    await this.event(run.id, 'workflow_started', { run_id: run.id, workflow_id: wf.id, inputs });
    const driving = this.drive(run, wf.definition)
      .catch(async (err) => {
        this.logger.error({ err, runId: run.id }, 'workflow run failed unexpectedly');
        await this.finish(run, 'failed', `internal error: ${(err as Error).message}`);
      })
      .finally(() => this.active.delete(driving));
    this.active.add(driving);
    return run;
  }

  async get(orgId: string, id: string): Promise<WorkflowRun> {
    const run = /^[0-9a-f-]{36}$/i.test(id) ? await this.runs.findOneBy({ id, orgId }) : null;
    if (!run) throw new NotFoundError('workflow run', id);
    return run;
  }

  async events(runId: string, afterSeq: number): Promise<Array<{ seq: number; type: string; data: Record<string, unknown> }>> {
    return this.dataSource.query(`SELECT seq, type, data FROM workflow_run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq`, [runId, afterSeq]);
  }

  async onApplicationShutdown(): Promise<void> {
    this.abort.abort();
    await Promise.allSettled([...this.active]);
  }

  private async drive(run: WorkflowRun, def: WorkflowDefinition): Promise<void> {
    const scope = () => ({ inputs: run.inputs, nodes: Object.fromEntries(Object.entries(run.nodes).map(([id, s]) => [id, { output: s.output ?? null, status: s.status }])) });
    const inFlight = new Map<string, Promise<void>>();
    for (;;) {
      if (this.abort.signal.aborted) return;
      const failed = Object.entries(run.nodes).find(([, s]) => s.status === 'failed');
      if (failed) {
        await Promise.allSettled(inFlight.values());
        return this.finish(run, 'failed', `node ${failed[0]} failed: ${failed[1].error}`);
      }
      const ended = def.nodes.find((n) => n.type === 'end' && run.nodes[n.id].status === 'completed');
      if (ended) return this.finish(run, 'completed', null);

      let progressed = false;
      for (const node of def.nodes) {
        if (run.nodes[node.id].status !== 'pending' || inFlight.has(node.id)) continue;
        const incoming = def.edges.filter((e) => e.to === node.id);
        if (incoming.some((e) => !['completed', 'skipped'].includes(run.nodes[e.from].status))) continue;
        const active = node.type === 'start' || incoming.some((e) => run.nodes[e.from].status === 'completed' && this.edgeOpen(e.when, scope()));
        progressed = true;
        if (!active) {
          await this.setNode(run, node.id, { status: 'skipped' }, 'node_skipped');
          continue;
        }
        const p = this.runNode(run, node, scope()).finally(() => inFlight.delete(node.id));
        inFlight.set(node.id, p);
      }
      if (inFlight.size === 0 && !progressed) {
        return this.finish(run, 'failed', 'no end node was reached (every remaining branch was skipped)');
      }
      if (inFlight.size > 0) await Promise.race(inFlight.values());
    }
  }

  private edgeOpen(when: string | undefined, scope: Record<string, unknown>): boolean {
    if (!when) return true;
    try {
      return evaluateCel(when, scope) === true;
    } catch {
      return false;
    }
  }

  private async runNode(run: WorkflowRun, node: WorkflowNode, scope: Record<string, unknown>): Promise<void> {
    await this.setNode(run, node.id, { status: 'running' }, 'node_started');
    try {
      switch (node.type) {
        case 'start':
          return await this.setNode(run, node.id, { status: 'completed', output: run.inputs }, 'node_completed');
        case 'end':
          return await this.setNode(run, node.id, { status: 'completed', output: null }, 'node_completed');
        case 'condition': {
          const value = evaluateCel(node.expression!, scope);
          return await this.setNode(run, node.id, { status: 'completed', output: typeof value === 'bigint' ? Number(value) : value }, 'node_completed');
        }
        case 'agent':
          return await this.runAgentNode(run, node, renderTemplate(node.prompt!, scope));
        case 'connector':
          throw new Error('connector nodes cannot run yet');
      }
    } catch (err) {
      await this.setNode(run, node.id, { status: 'failed', error: (err as Error).message }, 'node_failed');
    }
  }

  private async runAgentNode(run: WorkflowRun, node: WorkflowNode, prompt: string): Promise<void> {
    const started = await this.executor.start({ orgId: run.orgId, userId: run.userId, agentId: node.agent_id!, message: prompt, surface: 'workflow' });
    await this.setNode(run, node.id, { status: 'running', agent_run_id: started.runId }, 'node_agent_started');
    const outcome = await this.watchAgentRun(run, node.id, started.runId, started.completion);
    await this.settleFromAgentRun(run, node.id, started.runId, outcome);
  }

  private async watchAgentRun(run: WorkflowRun, nodeId: string, agentRunId: string, completion: Promise<{ status: string; answer: string | null; error: string | null }>) {
    let done = false;
    const outcome = completion.finally(() => (done = true));
    while (!done) {
      await Promise.race([outcome, new Promise((r) => setTimeout(r, AGENT_WATCH_MS))]);
      if (done) break;
      const agentRun = await this.agentRuns.find(run.orgId, agentRunId);
      const nodeStatus = agentRun.status === 'waiting' ? 'waiting' : 'running';
      if (run.nodes[nodeId].status !== nodeStatus) await this.setNode(run, nodeId, { ...run.nodes[nodeId], status: nodeStatus }, nodeStatus === 'waiting' ? 'node_waiting' : 'node_resumed');
    }
    return outcome;
  }

  /** An agent run that ended with a blocked tool call (a rejection, a hook) fails its node, with the reason shown. */
  private async settleFromAgentRun(run: WorkflowRun, nodeId: string, agentRunId: string, outcome: { status: string; answer: string | null; error: string | null }): Promise<void> {
    const blocked = (await this.runEvents.list(agentRunId, 0, ['observation'])).find((e) => e.data.blocked === true);
    if (outcome.status !== 'completed') {
      return this.setNode(run, nodeId, { status: 'failed', agent_run_id: agentRunId, error: outcome.error ?? `agent run ${outcome.status}` }, 'node_failed');
    }
    if (blocked) {
      return this.setNode(run, nodeId, { status: 'failed', agent_run_id: agentRunId, output: outcome.answer, error: String(blocked.data.content) }, 'node_failed');
    }
    await this.setNode(run, nodeId, { status: 'completed', agent_run_id: agentRunId, output: outcome.answer }, 'node_completed');
  }

  private async setNode(run: WorkflowRun, nodeId: string, state: NodeState, event: string): Promise<void> {
    run.nodes = { ...run.nodes, [nodeId]: state };
    const waiting = Object.values(run.nodes).some((s) => s.status === 'waiting');
    run.status = waiting ? 'waiting' : 'running';
    await this.dataSource.query(
      `UPDATE workflow_runs SET nodes = jsonb_set(nodes, $2, $3::jsonb), status = $4, updated_at = now() WHERE id = $1`,
      [run.id, [nodeId], JSON.stringify(state), run.status],
    );
    await this.event(run.id, event, { node_id: nodeId, ...state });
  }

  private async finish(run: WorkflowRun, status: 'completed' | 'failed', error: string | null): Promise<void> {
    run.status = status;
    run.error = error;
    await this.runs.update({ id: run.id }, { status, error });
    await this.event(run.id, 'done', { run_id: run.id, status, error });
  }

  private async event(runId: string, type: string, data: Record<string, unknown>): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO workflow_run_events (run_id, seq, type, data)
       SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3 FROM workflow_run_events WHERE run_id = $1`,
      [runId, type, JSON.stringify(data)],
    );
  }
}
