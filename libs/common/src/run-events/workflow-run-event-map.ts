/**
 * The events of a workflow run (`workflow_run_events`, `GET /api/workflow-runs/:id/events`), by type. All are
 * emitted by WorkflowRunner (`done` of a cancel by WorkflowCancel) and read by the SSE writer (the stream ends at
 * `done`) and the console; a node event carries the node's new state (`workflow_runs.nodes[<id>]`).
 */

/** A node's state as stored on the run and sent with its events (the workflows' `NodeState`). */
export interface WorkflowNodeEventData {
  node_id: string;
  status: 'pending' | 'running' | 'waiting' | 'completed' | 'failed' | 'skipped';
  output?: unknown;
  agent_run_id?: string;
  error?: string;
}

export interface WorkflowRunEventMap {
  /** The run began with these inputs. */
  workflow_started: { run_id: string; workflow_id: string; inputs: Record<string, unknown> };
  /** Another driver (this instance) took the run over after its lease ended. */
  workflow_resumed: { run_id: string; instance: string };
  /** A run node (AGENT, CONNECTOR, HUMAN) is starting its run. */
  node_started: WorkflowNodeEventData;
  /** That node's run began (`agent_run_id`). */
  node_agent_started: WorkflowNodeEventData;
  /** An AGENT node's run waits for an approval (mirrors its `confirmation_pending`). */
  node_waiting: WorkflowNodeEventData;
  /** An AGENT node's run goes on after its approvals (mirrors its `confirmation_resolved`). */
  node_resumed: WorkflowNodeEventData;
  /** A node's output is ready. */
  node_completed: WorkflowNodeEventData;
  /** A node failed (`error`); the run fails with it. */
  node_failed: WorkflowNodeEventData;
  /** A node on a branch not taken. */
  node_skipped: WorkflowNodeEventData;
  /** Always last, once: the run's end (`error` when it failed or was cancelled, else null). */
  done: { run_id: string; status: 'completed' | 'failed' | 'cancelled'; error: string | null };
}

export type WorkflowRunEventType = keyof WorkflowRunEventMap;

/** The node events, for the writer that sets a node's state and tells it in one step. */
export type WorkflowNodeEventType = {
  [K in WorkflowRunEventType]: WorkflowRunEventMap[K] extends WorkflowNodeEventData ? K : never;
}[WorkflowRunEventType];

/** Every type of the map, at run time (the object makes the compiler check the list is complete and exact). */
const EVERY_WORKFLOW_RUN_EVENT: Record<WorkflowRunEventType, true> = {
  workflow_started: true,
  workflow_resumed: true,
  node_started: true,
  node_agent_started: true,
  node_waiting: true,
  node_resumed: true,
  node_completed: true,
  node_failed: true,
  node_skipped: true,
  done: true,
};
export const WORKFLOW_RUN_EVENT_TYPES = Object.keys(EVERY_WORKFLOW_RUN_EVENT) as WorkflowRunEventType[];
