import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { isAdmin, type Principal } from '@warden/auth';
import { AppConfig, isUuid, NotFoundError } from '@warden/common';
import { Repository } from 'typeorm';
import { evaluateWorkflowCel, type WorkflowDefinition } from '../workflow-definition.js';
import { WorkflowRun, type NodeState } from '../workflow.entity.js';
import { WorkflowsService } from '../workflows.service.js';
import { WorkflowNodeRunner } from './workflow-node-runner.js';
import { WorkflowRunLeases } from './workflow-run-leases.js';

/**
 * Executes workflow runs: nodes in dependency order, independent branches in parallel. Every node's state is written
 * to `workflow_runs.nodes` before and after it runs, and every step is an event in `workflow_run_events`.
 * Nodes run in WorkflowNodeRunner; the lease and fencing epoch under which this instance writes live in
 * WorkflowRunLeases. When a run's lease lapses (the instance died) WorkflowRecovery hands it to `resume`, which
 * re-attaches to the agent runs its nodes started.
 */
@Injectable()
export class WorkflowRunner implements OnApplicationShutdown {
  private readonly logger = new Logger(WorkflowRunner.name);

  constructor(
    @InjectRepository(WorkflowRun) private readonly runs: Repository<WorkflowRun>,
    private readonly workflows: WorkflowsService,
    private readonly leases: WorkflowRunLeases,
    private readonly nodes: WorkflowNodeRunner,
    private readonly config: AppConfig,
  ) {}

  async start(
    orgId: string,
    userId: string,
    workflowId: string,
    inputs: Record<string, unknown>,
  ): Promise<WorkflowRun> {
    const wf = await this.workflows.get(orgId, workflowId);
    const nodes: Record<string, NodeState> = Object.fromEntries(
      wf.definition.nodes.map((n) => [n.id, { status: 'pending' as const }]),
    );
    const run = await this.runs.save(
      this.runs.create({
        orgId,
        userId,
        workflowId,
        status: 'running',
        inputs,
        nodes,
        error: null,
        lockedBy: this.config.instanceId,
        leaseUntil: new Date(Date.now() + this.config.runLeaseMs),
        leaseEpoch: 1,
      }),
    );
    this.leases.fence(run);
    await this.leases.event(run.id, 'workflow_started', { run_id: run.id, workflow_id: wf.id, inputs });
    this.launch(run, wf.definition);
    return run;
  }

  /** Continues a run this instance has just claimed (its previous driver is gone). */
  async resume(runId: string): Promise<void> {
    if (this.leases.isDriving(runId)) return;
    const run = await this.runs.findOneByOrFail({ id: runId });
    if (run.status !== 'running' && run.status !== 'waiting') return;
    const wf = await this.workflows.get(run.orgId, run.workflowId);
    // The recovery claim just incremented the epoch: this driver writes under the epoch it read with the row.
    this.leases.fence(run);
    await this.leases.event(run.id, 'workflow_resumed', { run_id: run.id, instance: this.config.instanceId });
    this.launch(run, wf.definition);
  }

  /** Stops this instance's drive of a run that ended elsewhere (cancelled): it writes nothing more. */
  stopDriving(runId: string): void {
    this.leases.stopDriving(runId);
  }

  drivingIds(): string[] {
    return this.leases.drivingIds();
  }

  get isStopping(): boolean {
    return this.leases.isStopping;
  }

  async get(orgId: string, id: string): Promise<WorkflowRun> {
    const run = isUuid(id) ? await this.runs.findOneBy({ id, orgId }) : null;
    if (!run) throw new NotFoundError('workflow run', id);
    return run;
  }

  /**
   * A run the caller may read: admins read every run of the org,
   * a member only those they started ("not found" otherwise).
   */
  async getVisible(p: Principal, id: string): Promise<WorkflowRun> {
    const run = await this.get(p.orgId, id);
    if (!isAdmin(p) && run.userId !== p.userId) throw new NotFoundError('workflow run', id);
    return run;
  }

  /** A workflow's runs the caller may read (as getVisible), newest first; at most the last 100. */
  async listVisible(p: Principal, workflowId: string): Promise<WorkflowRun[]> {
    const where = isAdmin(p) ? { orgId: p.orgId, workflowId } : { orgId: p.orgId, workflowId, userId: p.userId };
    return this.runs.find({ where, order: { createdAt: 'DESC' }, take: 100 });
  }

  /** Stops driving and hands the leases back, so another instance (or this one restarted) continues at once. */
  async onApplicationShutdown(): Promise<void> {
    await this.leases.releaseAll();
  }

  private launch(run: WorkflowRun, def: WorkflowDefinition): void {
    this.leases.launch(run, () =>
      this.drive(run, def).catch(async (err: unknown) => {
        if (this.leases.signalOf(run.id).aborted) return;
        this.logger.error({ err, runId: run.id }, 'workflow run failed unexpectedly');
        await this.leases
          .finish(run, 'failed', `internal error: ${(err as Error).message}`)
          .catch((e: unknown) =>
            this.logger.warn(
              { runId: run.id, reason: (e as Error).message },
              'could not record the failure; the run is left for recovery',
            ),
          );
      }),
    );
  }

  private async drive(run: WorkflowRun, def: WorkflowDefinition): Promise<void> {
    const scope = () => ({
      inputs: run.inputs,
      nodes: Object.fromEntries(
        Object.entries(run.nodes).map(([id, s]) => [id, { output: s.output ?? null, status: s.status }]),
      ),
    });
    const inFlight = new Map<string, Promise<void>>();
    // After a restart, nodes that were under way are continued first (agent nodes re-attach to their agent run).
    for (const node of def.nodes) {
      if (['running', 'waiting'].includes(run.nodes[node.id].status)) {
        inFlight.set(
          node.id,
          this.nodes.run(run, node, scope()).finally(() => inFlight.delete(node.id)),
        );
      }
    }
    for (;;) {
      if (this.leases.signalOf(run.id).aborted) return;
      const failed = Object.entries(run.nodes).find(([, s]) => s.status === 'failed');
      if (failed) {
        await Promise.allSettled(inFlight.values());
        return this.leases.finish(run, 'failed', `node ${failed[0]} failed: ${failed[1].error}`);
      }
      const ended = def.nodes.find((n) => n.type === 'end' && run.nodes[n.id].status === 'completed');
      if (ended) return this.leases.finish(run, 'completed', null);

      let progressed = false;
      for (const node of def.nodes) {
        if (run.nodes[node.id].status !== 'pending' || inFlight.has(node.id)) continue;
        const incoming = def.edges.filter((e) => e.to === node.id);
        if (incoming.some((e) => !['completed', 'skipped'].includes(run.nodes[e.from].status))) continue;
        const active =
          node.type === 'start' ||
          incoming.some((e) => run.nodes[e.from].status === 'completed' && this.edgeOpen(e.when, scope()));
        progressed = true;
        if (!active) {
          await this.leases.setNode(run, node.id, { status: 'skipped' }, 'node_skipped');
          continue;
        }
        inFlight.set(
          node.id,
          this.nodes.run(run, node, scope()).finally(() => inFlight.delete(node.id)),
        );
      }
      if (inFlight.size === 0 && !progressed) {
        return this.leases.finish(run, 'failed', 'no end node was reached (every remaining branch was skipped)');
      }
      if (inFlight.size > 0) await Promise.race(inFlight.values());
    }
  }

  private edgeOpen(when: string | undefined, scope: Record<string, unknown>): boolean {
    if (!when) return true;
    try {
      return evaluateWorkflowCel(when, scope) === true;
    } catch {
      return false;
    }
  }
}
