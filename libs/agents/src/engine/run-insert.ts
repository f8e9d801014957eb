import type { AppConfig, RunEventData } from '@warden/common';
import { EventBatch, SqlParams } from '@warden/database';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { RunEventsService } from '../runs/run-events.service.js';
import { AgentRun } from '../runs/run.entity.js';

/** What a new run is made of (the rest — status, lease, epoch — is how every run starts). */
export type NewRunFields = Pick<
  AgentRun,
  | 'orgId'
  | 'agentId'
  | 'userId'
  | 'conversationId'
  | 'parentRunId'
  | 'parentCallId'
  | 'surface'
  | 'mode'
  | 'hooks'
  | 'message'
  | 'state'
>;

/**
 * A new run's single statement: its conversation (when new), its row leased to `instanceId` from birth (epoch 1),
 * event 1.
 */
export interface RunInsert {
  run: AgentRun;
  /** Event 1 of the run (its payload with the envelope every event carries). */
  first: { type: 'run'; data: RunEventData<'run'> };
  sql: string;
  params: unknown[];
}

/**
 * Records a new run in one statement (see `runInsert`), committed when it returns — with `redoable`, without waiting
 * for its own disk flush: the next durable commit (at the latest the execution mark, before any tool call is sent)
 * flushes it too, as the WAL is written in order; a crash before that loses only work the run redoes. The run is
 * born here: its stream is served from memory from event 1.
 */
export async function insertRun(
  db: DataSource,
  events: RunEventsService,
  config: Pick<AppConfig, 'instanceId' | 'runLeaseMs'>,
  fields: NewRunFields,
  opts: { newConversation: boolean; redoable: boolean },
): Promise<AgentRun> {
  const ins = runInsert(fields, {
    ...opts,
    instanceId: config.instanceId,
    leaseMs: config.runLeaseMs,
    notify: events.notifies,
  });
  const batch = new EventBatch();
  events.willAppend(batch, ins.run.id);
  const [row] = await db
    .query<Array<{ created_at: Date; updated_at: Date; lease_until: Date; event_created_at: Date }>>(
      ins.sql,
      ins.params,
    )
    .catch((err: unknown) => {
      events.discard(batch);
      throw err;
    });
  Object.assign(ins.run, { createdAt: row.created_at, updatedAt: row.updated_at, leaseUntil: row.lease_until });
  batch.born.add(ins.run.id);
  batch.events.push({ ownerId: ins.run.id, event: { seq: 1, ...ins.first, created_at: row.event_created_at } });
  events.publish(batch);
  return ins.run;
}

/**
 * Builds the statement that records a new run. Ids are made here, so the conversation, the run and its `run` event
 * go in one statement (foreign keys are checked at its end): one round trip, committed when it returns.
 */
export function runInsert(
  fields: NewRunFields,
  opts: { instanceId: string; leaseMs: number; newConversation: boolean; redoable: boolean; notify: boolean },
): RunInsert {
  const p = new SqlParams();
  const id = randomUUID();
  const conversationId = opts.newConversation ? randomUUID() : fields.conversationId;
  const run = Object.assign(new AgentRun(), {
    ...fields,
    id,
    conversationId,
    status: 'running' as const,
    answer: null,
    error: null,
    eventSeq: 1,
    lockedBy: opts.instanceId,
    leaseUntil: new Date(Date.now() + opts.leaseMs),
    leaseEpoch: 1,
    traceId: null,
    finishedAt: null,
  });
  const first: RunInsert['first'] = {
    type: 'run',
    data: {
      run_id: id,
      surface: run.surface,
      agent_id: run.agentId,
      conversation_id: run.conversationId,
      mode: run.mode,
      hooks: run.hooks,
      parent_run_id: run.parentRunId,
      parent_call_id: run.parentCallId,
    },
  };
  const [org, agent, user] = [p.add(run.orgId), p.add(run.agentId), p.add(run.userId)];
  const ctes: string[] = [];
  if (opts.newConversation) {
    ctes.push(
      `conversation AS (INSERT INTO conversations (id, org_id, agent_id, user_id, messages)
         VALUES (${p.add(conversationId)}::uuid, ${org}::uuid, ${agent}::uuid, ${user}::uuid, '[]'::jsonb)
         RETURNING id)`,
    );
  }
  const values = [
    `${p.add(id)}::uuid`,
    `${org}::uuid`,
    `${agent}::uuid`,
    `${user}::uuid`,
    `${p.add(conversationId)}::uuid`,
    `${p.add(run.parentRunId)}::uuid`,
    `${p.add(run.parentCallId)}::text`,
    `${p.add(run.surface)}::text`,
    `${p.add(run.mode)}::text`,
    `'running'`,
    `${p.add(run.hooks)}::text`,
    `${p.add(run.message)}::text`,
    `${p.add(JSON.stringify(run.state))}::jsonb`,
    `1`,
    `${p.add(opts.instanceId)}::text`,
    `now() + make_interval(secs => ${p.add(opts.leaseMs / 1000)})`,
    `1`,
  ];
  ctes.push(
    `inserted AS (INSERT INTO agent_runs (id, org_id, agent_id, user_id, conversation_id, parent_run_id, parent_call_id,
         surface, mode, status, hooks, message, state, event_seq, locked_by, lease_until, lease_epoch)
       VALUES (${values.join(', ')}) RETURNING id, created_at, updated_at, lease_until)`,
    `appended AS (INSERT INTO run_events (run_id, seq, type, data)
       SELECT id, 1, ${p.add(first.type)}::text, ${p.add(JSON.stringify(first.data))}::jsonb FROM inserted
       RETURNING created_at)`,
  );
  const selected = [
    `(SELECT created_at FROM inserted) AS created_at`,
    `(SELECT updated_at FROM inserted) AS updated_at`,
    `(SELECT lease_until FROM inserted) AS lease_until`,
    `(SELECT created_at FROM appended) AS event_created_at`,
    ...(opts.notify ? [`pg_notify('run_events', ${p.add(id)} || ':1') AS notified`] : []),
    ...(opts.redoable ? [`set_config('synchronous_commit', 'off', true) AS sync_off`] : []),
  ];
  return { run, first, sql: `WITH ${ctes.join(',\n')}\nSELECT ${selected.join(', ')}`, params: p.values };
}
