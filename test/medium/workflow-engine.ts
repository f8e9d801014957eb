import { randomUUID } from 'node:crypto';
import { Test, type TestingModule } from '@nestjs/testing';
import { getRepositoryToken } from '@nestjs/typeorm';
import { RunEventsService, RunExecutor, type RunOutcome, type StoredRunEvent } from '@warden/agents';
import { AppConfigModule } from '@warden/common';
import { DATABASE_TARGET } from '@warden/database';
import { DataSource, type QueryRunner } from 'typeorm';
// Narrow imports (not the lib's index): the workflow engine and what it needs, not the whole app.
import { WorkflowNodeRunner } from '../../libs/workflows/src/engine/workflow-node-runner.js';
import { WorkflowRunEvents } from '../../libs/workflows/src/engine/workflow-run-events.js';
import { WorkflowRunLeases } from '../../libs/workflows/src/engine/workflow-run-leases.js';
import { WorkflowRunner } from '../../libs/workflows/src/engine/workflow-runner.js';
import type { WorkflowDefinition } from '../../libs/workflows/src/workflow-definition.js';
import { Workflow, WorkflowRun, type NodeState } from '../../libs/workflows/src/workflow.entity.js';
import { WorkflowsService } from '../../libs/workflows/src/workflows.service.js';
import { Org } from '../../libs/auth/src/orgs/org.entity.js';
import { User } from '../../libs/auth/src/users/user.entity.js';
import { mediumDb, type MediumDb } from './medium-db.js';

export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * The agent runs that AGENT/CONNECTOR/HUMAN nodes start, faked: each ends (completed) when `ends` resolves; its event
 * stream (followed until the follower's signal aborts, or the run ends; `followed` resolves when a node starts
 * following it) has one `confirmation_pending` once `asks` resolves — delivered unless the follower stopped; `asked`
 * resolves once that delivery was made (or skipped).
 */
export class FakeAgentRuns {
  ends = deferred();
  asks = deferred();
  asked = deferred();
  followed = deferred();

  readonly executor = {
    startToolRun: () => {
      const runId = randomUUID();
      return Promise.resolve({ runId, conversationId: null, completion: this.outcome(runId) });
    },
    waitForRun: (runId: string) => this.outcome(runId),
    cancel: () => Promise.resolve(true),
  };

  readonly events = {
    follow: (_runId: string, _after: number, deliver: (e: StoredRunEvent) => void, signal: AbortSignal) =>
      new Promise<boolean>((resolve) => {
        this.followed.resolve();
        signal.addEventListener('abort', () => resolve(false), { once: true });
        void this.ends.promise.then(() => resolve(true));
        void this.asks.promise.then(() => {
          if (!signal.aborted)
            deliver({ type: 'confirmation_pending', data: { confirmation_id: 'c1' } } as unknown as StoredRunEvent);
          this.asked.resolve();
        });
      }),
    list: () => Promise.resolve([]),
  };

  private outcome(runId: string): Promise<RunOutcome> {
    return this.ends.promise.then(() => ({ runId, status: 'completed', answer: '{"ok":true}', error: null }));
  }
}

export interface NodeWrite {
  nodeId: string;
  state: NodeState;
  /** Settles once the write's UPDATE has returned. */
  done: Promise<unknown>;
}

/**
 * Every node write (its UPDATE) waits for `before(nodeId, state)`; all are recorded. Returns the record, and undoes
 * the instrumentation with `restore`.
 */
export function instrumentNodeWrites(
  ds: DataSource,
  before: (nodeId: string, state: NodeState) => Promise<void> | void,
): NodeWrite[] & { restore(): void } {
  const query: DataSource['query'] = ds.query.bind(ds);
  const writes = Object.assign([] as NodeWrite[], { restore: () => void (ds.query = query) });
  ds.query = ((sql: string, params?: unknown[], runner?: QueryRunner) => {
    if (!sql.includes('jsonb_set(nodes')) return query(sql, params, runner);
    const [nodeId] = params?.[1] as string[];
    const state = JSON.parse(params?.[2] as string) as NodeState;
    const result = Promise.resolve(before(nodeId, state)).then(() => query(sql, params, runner));
    writes.push({ nodeId, state, done: result });
    return result;
  }) as DataSource['query'];
  return writes;
}

export interface WorkflowEngine {
  db: MediumDb;
  module: TestingModule;
  userId: string;
  workflowId: string;
  close(): Promise<void>;
}

/** The workflow engine (runner, leases, node runner, events) on a real database, for `definition`; no app, no HTTP. */
export async function workflowEngine(
  definition: WorkflowDefinition,
  agentRuns: FakeAgentRuns,
): Promise<WorkflowEngine> {
  const db = await mediumDb({ entities: [WorkflowRun, Workflow, Org, User] });
  const [{ id: userId }] = await db.dataSource.query(`INSERT INTO users (sub) VALUES ('medium-wf') RETURNING id`);
  const [{ id: workflowId }] = await db.dataSource.query(
    `INSERT INTO workflows (org_id, name, definition) VALUES ($1, 'medium', $2) RETURNING id`,
    [db.orgId, JSON.stringify(definition)],
  );
  const module = await Test.createTestingModule({
    imports: [
      AppConfigModule.forRoot({ NODE_ENV: 'test', DATABASE_URL: db.url, INSTANCE_ID: 'a', RUN_LEASE_MS: '60000' }),
    ],
    providers: [
      WorkflowRunner,
      WorkflowRunLeases,
      WorkflowNodeRunner,
      WorkflowRunEvents,
      { provide: getRepositoryToken(WorkflowRun), useValue: db.dataSource.getRepository(WorkflowRun) },
      { provide: WorkflowsService, useValue: { get: () => Promise.resolve({ id: workflowId, definition }) } },
      { provide: RunExecutor, useValue: agentRuns.executor },
      { provide: RunEventsService, useValue: agentRuns.events },
      { provide: DataSource, useValue: db.dataSource },
      { provide: DATABASE_TARGET, useValue: { url: db.url, embedded: false, close: () => Promise.resolve() } },
    ],
  }).compile();
  await module.init();
  return {
    db,
    module,
    userId,
    workflowId,
    async close() {
      agentRuns.ends.resolve();
      await module.close();
      await db.close();
    },
  };
}
