/** The shapes of the event log (`event-log.ts`): stored events, append options, tables, a transaction's batch. */

export interface StoredEvent {
  seq: number;
  type: string;
  data: Record<string, unknown>;
  created_at: Date;
}

export interface AppendOptions {
  /** Append only while the owner row is active at this lease epoch (the writer's fencing token). */
  epoch?: number;
  /** Run the statement on this transaction's manager instead of its own connection. */
  runner?: { query(sql: string, params?: unknown[]): Promise<any> };
  /** With `runner`: collects the event, so `publish(batch)` after the commit hands it to local followers unread. */
  batch?: EventBatch;
}

/** Events appended inside one transaction, published to this process's followers once it committed. */
export class EventBatch {
  readonly events: Array<{ ownerId: string; event: StoredEvent }> = [];
  readonly owners = new Set<string>();
  /** Owners created in this transaction: this process holds their whole log from its first event. */
  readonly born = new Set<string>();
}

/** Where a log lives: its events table (owner_id column `run_id`) and the owner table holding the `event_seq` counter. */
export interface EventLogTables {
  events: 'run_events' | 'workflow_run_events';
  owners: 'agent_runs' | 'workflow_runs';
  /** NOTIFY channel; the payload is the owner id. */
  channel: string;
}
