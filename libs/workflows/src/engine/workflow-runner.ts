import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { evaluate as evaluateCel } from '@marcbachmann/cel-js';
import { RunEventsService, RunExecutor, type RunOutcome } from '@warden/agents';
import { isAdmin, type Principal } from '@warden/auth';
import { AppConfig, isUuid, NotFoundError } from '@warden/common';
import { LeaseKeeper } from '@warden/database';
import { RunInterruptedError } from '@warden/hooks';
import { DataSource, Repository } from 'typeorm';
import { renderArgs, renderTemplate, type WorkflowDefinition, type WorkflowNode } from '../workflow-definition.js';
import { WorkflowRun, type NodeState } from '../workflow.entity.js';
import { WorkflowsService } from '../workflows.service.js';
import { WorkflowRunEvents } from './workflow-run-events.js';

/**
 * Executes workflow runs: nodes in dependency order, independent branches in parallel. Every node's state is written
 * to `workflow_runs.nodes` before and after it runs, and every step is an event in `workflow_run_events`.
 * AGENT nodes run the agent on surface `workflow` through the run engine, so the agent's own hooks and the approval
 * gate apply exactly as in chat. A run is leased by the instance driving it; when the lease lapses (the instance
 * died) WorkflowRecovery hands it to `resume`, which re-attaches to the agent runs its nodes started.
 */
@Injectable()
export class WorkflowRunner implements OnApplicationShutdown {
  private readonly logger = new Logger(WorkflowRunner.name);
  private readonly abort = new AbortController();
  private readonly driving = new Map<string, Promise<void>>();
  /** The fencing epoch each driven run was claimed with, and the signal that stops its drive (shutdown or lease lost). */
  private readonly fences = new Map<string, { epoch: number; lost: AbortController; signal: AbortSignal }>();
  /** One renewal statement per tick for every workflow run this instance drives (as for agent runs). */
  private readonly leases: LeaseKeeper;

  constructor(
    @InjectRepository(WorkflowRun) private readonly runs: Repository<WorkflowRun>,
    private readonly dataSource: DataSource,
    private readonly workflows: WorkflowsService,
    private readonly executor: RunExecutor,
    private readonly agentRunEvents: RunEventsService,
    private readonly runEvents: WorkflowRunEvents,
    private readonly config: AppConfig,
  ) {
    this.leases = new LeaseKeeper(dataSource, 'workflow_runs', config.runLeaseMs,
      (err) => this.logger.warn(`workflow run lease renewal failed (the next tick retries): ${err.message}`));
  }

  async start(orgId: string, userId: string, workflowId: string, inputs: Record<string, unknown>): Promise<WorkflowRun> {
    const wf = await this.workflows.get(orgId, workflowId);
    const nodes: Record<string, NodeState> = Object.fromEntries(wf.definition.nodes.map((n) => [n.id, { status: 'pending' as const }]));
    const run = await this.runs.save(this.runs.create({
      orgId, userId, workflowId, status: 'running', inputs, nodes, error: null,
      lockedBy: this.config.instanceId, leaseUntil: new Date(Date.now() + this.config.runLeaseMs), leaseEpoch: 1,
    }));
    this.fence(run);
    await this.event(run.id, 'workflow_started', { run_id: run.id, workflow_id: wf.id, inputs });
    this.launch(run, wf.definition);
    return run;
  }

  /** Continues a run this instance has just claimed (its previous driver is gone). */
  async resume(runId: string): Promise<void> {
    if (this.driving.has(runId)) return;
    const run = await this.runs.findOneByOrFail({ id: runId });
    if (run.status !== 'running' && run.status !== 'waiting') return;
    const wf = await this.workflows.get(run.orgId, run.workflowId);
    // The recovery claim just incremented the epoch: this driver writes under the epoch it read with the row.
    this.fence(run);
    await this.event(run.id, 'workflow_resumed', { run_id: run.id, instance: this.config.instanceId });
    this.launch(run, wf.definition);
  }

  /** Stops this instance's drive of a run that ended elsewhere (cancelled): it writes nothing more. */
  stopDriving(runId: string): void {
    if (this.fences.has(runId)) this.lost(runId);
  }

  drivingIds(): string[] {
    return [...this.driving.keys()];
  }

  get isStopping(): boolean {
    return this.abort.signal.aborted;
  }

  async get(orgId: string, id: string): Promise<WorkflowRun> {
    const run = isUuid(id) ? await this.runs.findOneBy({ id, orgId }) : null;
    if (!run) throw new NotFoundError('workflow run', id);
    return run;
  }

  /** A run the caller may read: admins read every run of the org, a member only those they started ("not found" otherwise). */
  async getVisible(p: Principal, id: string): Promise<WorkflowRun> {
    const run = await this.get(p.orgId, id);
    if (!isAdmin(p) && run.userId !== p.userId) throw new NotFoundError('workflow run', id);
    return run;
  }

  /** Stops driving and hands the leases back, so another instance (or this one restarted) continues at once. */
  async onApplicationShutdown(): Promise<void> {
    this.abort.abort();
    const ids = this.drivingIds();
    await Promise.allSettled([...this.driving.values()]);
    if (ids.length > 0) {
      await this.dataSource.query(`UPDATE workflow_runs SET lease_until = now() WHERE id = ANY($1::uuid[]) AND locked_by = $2`, [ids, this.config.instanceId])
        .catch(() => undefined);
    }
  }

  private fence(run: WorkflowRun): void {
    const lost = new AbortController();
    this.fences.set(run.id, { epoch: run.leaseEpoch, lost, signal: AbortSignal.any([this.abort.signal, lost.signal]) });
  }

  /** Stops on shutdown, or once another driver holds the run (this instance was paused past its lease). */
  private signalOf(runId: string): AbortSignal {
    return this.fences.get(runId)?.signal ?? this.abort.signal;
  }

  private launch(run: WorkflowRun, def: WorkflowDefinition): void {
    this.leases.hold(run.id, run.leaseEpoch, () => this.lost(run.id));
    const driving = this.drive(run, def)
      .catch(async (err) => {
        if (this.signalOf(run.id).aborted) return;
        this.logger.error({ err, runId: run.id }, 'workflow run failed unexpectedly');
        await this.finish(run, 'failed', `internal error: ${(err as Error).message}`)
          .catch((e: Error) => this.logger.warn({ runId: run.id, reason: e.message }, 'could not record the failure; the run is left for recovery'));
      })
      .finally(() => {
        this.leases.release(run.id);
        this.driving.delete(run.id);
        this.fences.delete(run.id);
      });
    this.driving.set(run.id, driving);
  }

  /** A fenced write was refused: this driver no longer holds the run; it stops without writing anything more. */
  private lost(runId: string): RunInterruptedError {
    const err = new RunInterruptedError(`workflow run ${runId}: the lease was lost; stopping here`);
    const fence = this.fences.get(runId);
    if (fence && !fence.lost.signal.aborted) {
      this.logger.warn({ workflowRunId: runId }, 'workflow run lease lost (another driver holds it, or it ended); stopping here');
      fence.lost.abort(err);
    }
    return err;
  }

  private async drive(run: WorkflowRun, def: WorkflowDefinition): Promise<void> {
    const scope = () => ({ inputs: run.inputs, nodes: Object.fromEntries(Object.entries(run.nodes).map(([id, s]) => [id, { output: s.output ?? null, status: s.status }])) });
    const inFlight = new Map<string, Promise<void>>();
    // After a restart, nodes that were under way are continued first (agent nodes re-attach to their agent run).
    for (const node of def.nodes) {
      if (['running', 'waiting'].includes(run.nodes[node.id].status)) {
        inFlight.set(node.id, this.runNode(run, node, scope()).finally(() => inFlight.delete(node.id)));
      }
    }
    for (;;) {
      if (this.signalOf(run.id).aborted) return;
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
        inFlight.set(node.id, this.runNode(run, node, scope()).finally(() => inFlight.delete(node.id)));
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
    try {
      switch (node.type) {
        case 'start':
          { await this.setNode(run, node.id, { status: 'completed', output: run.inputs }, 'node_completed'); return; }
        case 'end':
          { await this.setNode(run, node.id, { status: 'completed', output: null }, 'node_completed'); return; }
        case 'condition': {
          const value = evaluateCel(node.expression!, scope);
          await this.setNode(run, node.id, { status: 'completed', output: typeof value === 'bigint' ? Number(value) : value }, 'node_completed'); return;
        }
        case 'agent':
        case 'connector':
        case 'human':
          { await this.runRunNode(run, node, scope); return; }
      }
    } catch (err) {
      if (this.signalOf(run.id).aborted) return;
      await this.setNode(run, node.id, { status: 'failed', error: (err as Error).message }, 'node_failed');
    }
  }

  /**
   * AGENT and CONNECTOR nodes are runs of the run engine on surface `workflow`: an agent run, or a one-call run of the
   * connector tool with the node's hooks plus the auto-attached ones (the approval gate included).
   */
  private async runRunNode(run: WorkflowRun, node: WorkflowNode, scope: Record<string, unknown>): Promise<void> {
    let agentRunId = run.nodes[node.id].agent_run_id;
    let completion: Promise<RunOutcome>;
    if (agentRunId) {
      // Resumed: the run continues on its own (run recovery); wait for it from here.
      completion = this.executor.waitForRun(agentRunId, this.signalOf(run.id));
    } else {
      await this.setNode(run, node.id, { status: 'running' }, 'node_started');
      const started = node.type === 'agent'
        ? await this.executor.start({
          orgId: run.orgId, userId: run.userId, agentId: node.agent_id!, message: renderTemplate(node.prompt!, scope), surface: 'workflow',
          confirmationOverride: node.confirmation,
        })
        : await this.executor.startToolRun({
          orgId: run.orgId, userId: run.userId, ownerId: run.workflowId, ownerUserId: run.userId, name: `workflow node ${node.id}`,
          surface: 'workflow', ...toolCallOf(node, scope), hooksConfig: node.hooks, confirmation: node.confirmation,
        });
      agentRunId = started.runId;
      completion = started.completion;
      // Not recorded (the workflow run was cancelled or taken over meanwhile): the run just started is nobody's.
      await this.setNode(run, node.id, { status: 'running', agent_run_id: agentRunId }, 'node_agent_started')
        .catch(async (err: unknown) => { await this.executor.cancel(started.runId).catch(() => undefined); throw err; });
    }
    const outcome = await this.watchAgentRun(run, node.id, agentRunId, completion);
    if (this.signalOf(run.id).aborted) return;
    await this.settleFromRun(run, node, agentRunId, outcome);
  }

  /**
   * Mirrors the run's approvals onto the node (`waiting` while one is pending) by following the run's own event
   * stream — woken by its events, not by polling — until the run is done.
   */
  private async watchAgentRun(run: WorkflowRun, nodeId: string, agentRunId: string, completion: Promise<RunOutcome>): Promise<RunOutcome> {
    const pending = new Set<unknown>();
    let mirrored: Promise<void> = Promise.resolve();
    const mirror = (waiting: boolean) => {
      const status = waiting ? 'waiting' : 'running';
      mirrored = mirrored.then(async () => {
        if (run.nodes[nodeId].status !== status) await this.setNode(run, nodeId, { ...run.nodes[nodeId], status }, waiting ? 'node_waiting' : 'node_resumed');
      });
    };
    await this.agentRunEvents.follow(agentRunId, 0, (event) => {
      if (event.type === 'confirmation_pending') pending.add(event.data.confirmation_id);
      else if (event.type === 'confirmation_resolved') pending.delete(event.data.confirmation_id);
      else return;
      mirror(pending.size > 0);
    }, this.signalOf(run.id));
    await mirrored;
    // A local drive that stopped without ending the run (lease lost, database blip) settles with an active status:
    // the run goes on elsewhere, so its end is read from its row.
    const outcome = await completion;
    return outcome.status === 'running' || outcome.status === 'waiting' ? this.executor.waitForRun(agentRunId, this.signalOf(run.id)) : outcome;
  }


  /**
   * A run that ended with a blocked tool call (a rejection, a hook) fails its node, with the reason shown; so does a
   * CONNECTOR node whose call failed (non-2xx, timeout, interrupted).
   */
  private async settleFromRun(run: WorkflowRun, node: WorkflowNode, agentRunId: string, outcome: RunOutcome): Promise<void> {
    const nodeId = node.id;
    if (outcome.status !== 'completed') {
      return this.setNode(run, nodeId, { status: 'failed', agent_run_id: agentRunId, error: outcome.error ?? `run ${outcome.status}` }, 'node_failed');
    }
    const observations = (await this.agentRunEvents.list(agentRunId, 0, ['observation'])).filter((e) => e.data.run_id === agentRunId);
    const failed = observations.find((e) => e.data.blocked === true) ?? (node.type === 'connector' ? observations.find((e) => e.data.ok === false) : undefined);
    if (failed) {
      return this.setNode(run, nodeId, { status: 'failed', agent_run_id: agentRunId, output: outcome.answer, error: String(failed.data.content) }, 'node_failed');
    }
    const output = node.type === 'agent' ? outcome.answer : parseJsonOrText(outcome.answer);
    await this.setNode(run, nodeId, { status: 'completed', agent_run_id: agentRunId, output }, 'node_completed');
  }

  private async setNode(run: WorkflowRun, nodeId: string, state: NodeState, event: string): Promise<void> {
    run.nodes = { ...run.nodes, [nodeId]: state };
    const waiting = Object.values(run.nodes).some((s) => s.status === 'waiting');
    run.status = waiting ? 'waiting' : 'running';
    const [, updated] = await this.dataSource.query(
      `UPDATE workflow_runs SET nodes = jsonb_set(nodes, $2, $3::jsonb), status = $4, updated_at = now()
       WHERE id = $1 AND status IN ('running', 'waiting') AND lease_epoch = $5`,
      [run.id, [nodeId], JSON.stringify(state), run.status, this.fences.get(run.id)?.epoch ?? -1],
    );
    if (updated === 0) throw this.lost(run.id);
    await this.event(run.id, event, { node_id: nodeId, ...state });
  }

  private async finish(run: WorkflowRun, status: 'completed' | 'failed', error: string | null): Promise<void> {
    run.status = status;
    run.error = error;
    // The end and its `done` event commit together, and only while this driver holds the run.
    const won = await this.dataSource.transaction(async (m) => {
      const [rows]: [unknown[], number] = await m.query(
        `UPDATE workflow_runs SET status = $2, error = $3, locked_by = NULL, lease_until = NULL, updated_at = now()
         WHERE id = $1 AND status IN ('running', 'waiting') AND lease_epoch = $4 RETURNING id`,
        [run.id, status, error, this.fences.get(run.id)?.epoch ?? -1],
      );
      return rows.length > 0 && this.runEvents.appendIf(run.id, 'done', { run_id: run.id, status, error }, { runner: m });
    });
    if (!won) throw this.lost(run.id);
    this.runEvents.wake(run.id);
  }

  /** Appends one of the run's events while this driver holds it at its epoch. */
  private async event(runId: string, type: string, data: Record<string, unknown>): Promise<void> {
    if (!(await this.runEvents.appendIf(runId, type, data, { epoch: this.fences.get(runId)?.epoch ?? -1 }))) throw this.lost(runId);
  }

}

/** The one call of a CONNECTOR node (its tool), or of a HUMAN node (`ask_human` with the question and form). */
function toolCallOf(node: WorkflowNode, scope: Record<string, unknown>): { tool: string; args: Record<string, unknown> } {
  if (node.type === 'human') {
    return { tool: 'ask_human', args: { question: renderTemplate(node.question!, scope), ...(node.form ? { form: node.form } : {}) } };
  }
  return { tool: node.tool!, args: renderArgs(node.args ?? {}, scope) };
}

/** A connector's JSON response becomes structured output, so conditions can read `nodes.pay.output.status`. */
function parseJsonOrText(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
