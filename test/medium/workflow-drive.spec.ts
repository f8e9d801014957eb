import type { DataSource, QueryRunner } from 'typeorm';
import { WorkflowRunEvents, type StoredWorkflowRunEvent } from '../../libs/workflows/src/engine/workflow-run-events.js';
import { WorkflowRunLeases } from '../../libs/workflows/src/engine/workflow-run-leases.js';
import { WorkflowRunner } from '../../libs/workflows/src/engine/workflow-runner.js';
import type { WorkflowDefinition } from '../../libs/workflows/src/workflow-definition.js';
import { deferred, FakeAgentRuns, workflowEngine, type WorkflowEngine } from './workflow-engine.js';

/** start -> check (a condition) -> end: a node's state changes in memory at once, so all three start in one pass of the drive. */
const DEFINITION: WorkflowDefinition = {
  nodes: [
    { id: 'start', type: 'start' },
    { id: 'check', type: 'condition', expression: 'true' },
    { id: 'end', type: 'end' },
  ],
  edges: [
    { from: 'start', to: 'check' },
    { from: 'check', to: 'end', when: 'nodes.check.output == true' },
  ],
};

/**
 * Holds the node's state write (its UPDATE) until the run's end is being written (`finish` called), deterministically:
 * should `finish` start its transaction at once (not after the node's write), the held write goes only once that
 * transaction is over — the interleaving seen under load, where the write is refused and the node stays pending.
 */
function holdNodeWriteUntilFinish(nodeId: string, leases: WorkflowRunLeases, ds: DataSource): void {
  const finishCalled = deferred();
  let finishing: Promise<unknown> | undefined;
  let inFinish = false;
  const finish = leases.finish.bind(leases);
  leases.finish = (...args) => {
    inFinish = true;
    try {
      return finish(...args);
    } finally {
      inFinish = false;
      finishCalled.resolve();
    }
  };
  const transaction = ds.transaction.bind(ds) as (...a: unknown[]) => Promise<unknown>;
  ds.transaction = (...args: unknown[]) => {
    const tx = transaction(...args);
    if (inFinish) finishing = tx;
    return tx;
  };
  const query = ds.query.bind(ds);
  ds.query = (async (sql: string, params?: unknown[], runner?: QueryRunner) => {
    if (sql.includes('jsonb_set(nodes') && (params?.[1] as string[])[0] === nodeId) {
      await finishCalled.promise;
      await finishing?.catch(() => undefined);
    }
    return query(sql, params, runner);
  }) as DataSource['query'];
}

/** The workflow engine (runner, leases, node runner, events) on a real database; no agents, no HTTP. */
describe('WorkflowRunner (medium)', () => {
  let engine: WorkflowEngine;
  // START, CONDITION and END nodes run no agent.
  beforeAll(async () => (engine = await workflowEngine(DEFINITION, new FakeAgentRuns())));
  afterAll(() => engine?.close());

  it("a run completes only once its END node's state is written: the node list never shows it pending", async () => {
    const { module, db } = engine;
    holdNodeWriteUntilFinish('end', module.get(WorkflowRunLeases), db.dataSource);
    const run = await module.get(WorkflowRunner).start(db.orgId, engine.userId, engine.workflowId, {});
    const events: StoredWorkflowRunEvent[] = [];
    await module.get(WorkflowRunEvents).follow(run.id, 0, (e) => events.push(e), new AbortController().signal);

    const [row] = await db.dataSource.query(`SELECT status, nodes FROM workflow_runs WHERE id = $1`, [run.id]);
    expect(row).toMatchObject({
      status: 'completed',
      nodes: { start: { status: 'completed' }, check: { status: 'completed' }, end: { status: 'completed' } },
    });
    const types = events.map((e) => `${e.type}${'node_id' in e.data ? ` ${e.data.node_id}` : ''}`);
    // Every node's event before `done` (START, CONDITION and END nodes are started in one pass: their writes may land in any order).
    expect(types[0]).toBe('workflow_started');
    expect(types.slice(1, -1).sort()).toEqual(['node_completed check', 'node_completed end', 'node_completed start']);
    expect(types.at(-1)).toBe('done');
  });
});
