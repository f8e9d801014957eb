import type { WorkflowDefinition } from '../../libs/workflows/src/workflow-definition.js';
import { WorkflowRunLeases } from '../../libs/workflows/src/engine/workflow-run-leases.js';
import { WorkflowRun, type NodeState } from '../../libs/workflows/src/workflow.entity.js';
import {
  deferred,
  FakeAgentRuns,
  instrumentNodeWrites,
  workflowEngine,
  type WorkflowEngine,
} from './workflow-engine.js';

/** Two parallel branches, a and b (the nodes' types do not matter here: the test writes their states itself). */
const DEFINITION: WorkflowDefinition = {
  nodes: [
    { id: 'start', type: 'start' },
    { id: 'a', type: 'human', question: 'a?' },
    { id: 'b', type: 'human', question: 'b?' },
    { id: 'end', type: 'end' },
  ],
  edges: [
    { from: 'start', to: 'a' },
    { from: 'start', to: 'b' },
    { from: 'a', to: 'end' },
    { from: 'b', to: 'end' },
  ],
};

/** The run's stored status follows its stored nodes ('waiting' while any node waits), whatever order writes land in. */
describe('workflow run status (medium)', () => {
  let engine: WorkflowEngine;

  beforeAll(async () => {
    engine = await workflowEngine(DEFINITION, new FakeAgentRuns());
  });
  afterAll(async () => {
    await engine?.close();
  });

  /** A run this instance drives (fenced at epoch 1), its branches a and b under way. */
  async function drivenRun(nodes: Record<string, NodeState>): Promise<WorkflowRun> {
    const runs = engine.db.dataSource.getRepository(WorkflowRun);
    const run = await runs.save(
      runs.create({
        orgId: engine.db.orgId,
        userId: engine.userId,
        workflowId: engine.workflowId,
        status: Object.values(nodes).some((s) => s.status === 'waiting') ? 'waiting' : 'running',
        inputs: {},
        nodes: { start: { status: 'completed' }, ...nodes, end: { status: 'pending' } },
        error: null,
        lockedBy: 'a',
        leaseUntil: new Date(Date.now() + 60_000),
        leaseEpoch: 1,
      }),
    );
    engine.module.get(WorkflowRunLeases).fence(run);
    return run;
  }

  it.each([
    // b starts waiting for a human while a's completion (computed "running": nothing waited then) is on its way.
    { before: { a: 'running', b: 'running' }, first: ['a', 'completed'], second: ['b', 'waiting'], status: 'waiting' },
    // a is answered (resumed) while b's completion (computed "waiting": a waited then) is on its way.
    { before: { a: 'waiting', b: 'running' }, first: ['b', 'completed'], second: ['a', 'running'], status: 'running' },
  ] as const)(
    'two node writes of parallel branches that land in the other order leave the run $status',
    async ({ before, first, second, status }) => {
      // The first write (its UPDATE) is held until the second has committed.
      const secondDone = deferred();
      const writes = instrumentNodeWrites(engine.db.dataSource, (nodeId) =>
        nodeId === first[0] ? secondDone.promise : undefined,
      );
      try {
        const run = await drivenRun({ a: { status: before.a }, b: { status: before.b } });
        const leases = engine.module.get(WorkflowRunLeases);

        const firstWrite = leases.setNode(run, first[0], { status: first[1] }, 'node_completed');
        await leases.setNode(
          run,
          second[0],
          { status: second[1] },
          second[1] === 'waiting' ? 'node_waiting' : 'node_resumed',
        );
        secondDone.resolve();
        await firstWrite;

        expect(writes.map((w) => w.nodeId)).toEqual([first[0], second[0]]);
        const [row] = await engine.db.dataSource.query(`SELECT status, nodes FROM workflow_runs WHERE id = $1`, [
          run.id,
        ]);
        expect(row.nodes).toMatchObject({ [first[0]]: { status: first[1] }, [second[0]]: { status: second[1] } });
        expect(row.status).toBe(status);
      } finally {
        writes.restore();
      }
    },
  );
});
