/** The shapes of the event log (`event-log.ts`): stored events, append options, tables, a transaction's batch. */

/** What a log holds, by event type: the payload of each (e.g. `RunEventMap`); untyped logs use the default. */
export type AnyEventMap = Record<string, Record<string, unknown>>;

/**
 * A stored event; with an event map, a union that a reader narrows by `type` (then `data` is that type's payload,
 * with the fields `E` that the log's writer adds to every event).
 */
export type StoredEvent<M = AnyEventMap, K extends keyof M & string = keyof M & string, E = unknown> = {
  [T in K]: { seq: number; type: T; data: M[T] & E; created_at: Date };
}[K];

export interface AppendOptions {
  /** Append only while the owner row is active at this lease epoch (the writer's fencing token). */
  epoch?: number;
  /** Run the statement on this transaction's manager instead of its own connection. */
  runner?: { query(sql: string, params?: unknown[]): Promise<unknown> };
  /** With `runner`: collects the event, so `publish(batch)` after the commit hands it to local followers unread. */
  batch?: EventBatch;
}

/** An event as the log keeps it in memory, whatever its map (readers get it typed as `StoredEvent<M>`). */
export interface LoggedEvent {
  seq: number;
  type: string;
  data: unknown;
  created_at: Date;
}

/** Events appended inside one transaction, published to this process's followers once it committed. */
export class EventBatch {
  readonly events: Array<{ ownerId: string; event: LoggedEvent }> = [];
  readonly owners = new Set<string>();
  /** Owners created in this transaction: this process holds their whole log from its first event. */
  readonly born = new Set<string>();
}

/**
 * Where a log lives: its events table (owner_id column `run_id`) and the owner table holding the `event_seq` counter.
 */
export interface EventLogTables {
  events: 'run_events' | 'workflow_run_events';
  owners: 'agent_runs' | 'workflow_runs';
  /** NOTIFY channel; the payload is the owner id. */
  channel: string;
}
