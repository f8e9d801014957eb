import { Injectable } from '@nestjs/common';
import { RunExecutor } from '@warden/agents';
import type { Principal } from '@warden/auth';
import { ConflictError } from '@warden/common';
import { DataSource } from 'typeorm';
import type { WorkflowRun } from '../workflow.entity.js';
import { WorkflowRunEvents } from './workflow-run-events.js';
import { WorkflowRunner } from './workflow-runner.js';

const REASON = 'the workflow run was cancelled';

/**
 * Cancels a workflow run from any instance: in one transaction the run ends `cancelled` with its `done` event (only
 * while it is active, so a run that ended meanwhile is a 409); then the agent runs its nodes started are cancelled,
 * which expires their pending approvals (NOTIFY: later decisions get 409). Whichever instance drives the run finds its
 * next fenced write refused and stops before sending anything.
 */
@Injectable()
export class WorkflowCancel {
  constructor(
    private readonly dataSource: DataSource,
    private readonly runner: WorkflowRunner,
    private readonly executor: RunExecutor,
    private readonly runEvents: WorkflowRunEvents,
  ) {}

  async cancel(p: Principal, id: string): Promise<WorkflowRun> {
    const run = await this.runner.getVisible(p, id);
    const won = await this.dataSource.transaction(async (m) => {
      const [rows]: [unknown[], number] = await m.query(
        `UPDATE workflow_runs SET status = 'cancelled', error = $2, locked_by = NULL, lease_until = NULL,
                                  updated_at = now()
         WHERE id = $1 AND status IN ('running', 'waiting') RETURNING id`,
        [run.id, REASON],
      );
      return (
        rows.length > 0 &&
        this.runEvents.appendIf(run.id, 'done', { run_id: run.id, status: 'cancelled', error: REASON }, { runner: m })
      );
    });
    if (!won) {
      const now = await this.runner.get(p.orgId, id);
      throw new ConflictError(`the workflow run already ended with status ${now.status}`, { status: now.status });
    }
    this.runEvents.wake(run.id);
    this.runner.stopDriving(run.id);
    for (const state of Object.values(run.nodes)) {
      if (state.agent_run_id && (state.status === 'running' || state.status === 'waiting'))
        await this.executor.cancel(state.agent_run_id);
    }
    return this.runner.get(p.orgId, id);
  }
}
