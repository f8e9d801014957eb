import { Inject, Injectable, Optional, type OnModuleInit } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { AppConfig, BoundedMap, isUuid, Metrics, type Bus } from '@warden/common';
import { PARKED_RUNS_CLAIMED, parkedClaimsOf } from '@warden/agents/settle-port';
import { DataSource } from 'typeorm';
import {
  CONFIRMATION_NOTIFIED,
  CONFIRMATION_REQUESTED,
  CONFIRMATION_SETTLED,
  CONFIRMATION_VOTED,
  ConfirmationStatus,
  rowToConfirmation,
  type ConfirmationRow,
  type ConfirmationRequest,
} from './confirmation.types.js';
import { CONFIRMATION_COLUMN_LIST as COLUMNS } from './confirmation-row.js';
import {
  editValues,
  INSERT_SQL,
  insertParams,
  listStatement,
  REBIND_SQL,
  RECORD_DELIVERY_SQL,
  settleStatement,
  voteSettleStatement,
} from './confirmation-statements.js';
import type { Vote } from './confirmation-votes.store.js';
import type { ListFilter, NewConfirmation, Settlement } from './confirmation-store.types.js';

export type { ListFilter, NewConfirmation, Settlement } from './confirmation-store.types.js';

/** How many of this instance's settlements are remembered to tell their NOTIFY echo from another instance's. */
const OWN_SETTLEMENTS_KEPT = 10_000;

/**
 * The SQL of `confirmation_requests`. Every state change is one conditional statement (`WHERE status =
 * 'pending'`), so the first decision wins under any concurrency, and it carries its own `pg_notify`, which
 * Postgres delivers when that statement commits: a waiter on any instance wakes exactly when the decision is
 * durable. The same change is then published in-process (PGlite has no cross-session NOTIFY worth relying on).
 */
@Injectable()
export class ConfirmationStore implements OnModuleInit {
  /** Statements issued, by purpose; the bench reads these to show what waiting costs. */
  readonly queryCounts = { poll: 0, wake: 0, transition: 0, other: 0 };
  private readonly ownSettlements = new BoundedMap<string, true>(OWN_SETTLEMENTS_KEPT);

  constructor(
    private readonly dataSource: DataSource,
    @Inject(EventEmitter2) private readonly events: Bus,
    @Optional() private readonly metrics?: Metrics,
    /** Who claims a run parked on a settled request, in the settlement's statement (none: the engine claims after). */
    @Optional() private readonly config?: AppConfig,
  ) {}

  onModuleInit(): void {
    this.metrics?.gauge('warden_approvals_pending', 'Approval requests waiting for a decision (all orgs)', async () => {
      const rows = await this.dataSource.query<Array<{ n: number }>>(
        `SELECT count(*)::int AS n FROM confirmation_requests WHERE status = 'pending'`,
      );
      return rows.at(0)?.n ?? 0;
    });
  }

  private async rows(
    kind: keyof ConfirmationStore['queryCounts'],
    sql: string,
    params: unknown[],
  ): Promise<ConfirmationRequest[]> {
    this.queryCounts[kind]++;
    const result: unknown[] = await this.dataSource.query(sql, params);
    // TypeORM answers a bare UPDATE with [rows, rowCount]; every other statement with the rows.
    const raw = (Array.isArray(result[0]) ? result[0] : result) as ConfirmationRow[];
    return raw.map(rowToConfirmation);
  }

  /** The first row of a statement's answer (none: undefined). */
  private async row(
    kind: keyof ConfirmationStore['queryCounts'],
    sql: string,
    params: unknown[],
  ): Promise<ConfirmationRequest | undefined> {
    return (await this.rows(kind, sql, params)).at(0);
  }

  async findByRunCall(runId: string, callId: string): Promise<ConfirmationRequest | null> {
    const row = await this.row(
      'other',
      `SELECT ${COLUMNS} FROM confirmation_requests WHERE run_id = $1 AND call_id = $2`,
      [runId, callId],
    );
    return row ?? null;
  }

  /**
   * Inserts the request unless the run + call already has one; either way returns the row that exists now.
   * `created` is false when another attempt (a re-driven run, another instance) got there first.
   */
  async insertOrGet(input: NewConfirmation): Promise<{ row: ConfirmationRequest; created: boolean }> {
    const inserted = await this.row('other', INSERT_SQL, insertParams(input));
    if (inserted) {
      this.events.emit(CONFIRMATION_REQUESTED, inserted);
      return { row: inserted, created: true };
    }
    const existing = await this.findByRunCall(input.runId, input.callId);
    if (!existing)
      throw new Error(`confirmation for run ${input.runId} call ${input.callId} vanished after a conflicting insert`);
    return { row: existing, created: false };
  }

  async findByRun(runId: string): Promise<ConfirmationRequest[]> {
    return this.rows('other', `SELECT ${COLUMNS} FROM confirmation_requests WHERE run_id = $1`, [runId]);
  }

  async findInOrg(orgId: string, id: string): Promise<ConfirmationRequest | null> {
    if (!isUuid(id)) return null;
    const sql = `SELECT ${COLUMNS} FROM confirmation_requests WHERE id = $1 AND org_id = $2`;
    return (await this.row('other', sql, [id, orgId])) ?? null;
  }

  async findById(id: string): Promise<ConfirmationRequest | null> {
    const row = await this.row('other', `SELECT ${COLUMNS} FROM confirmation_requests WHERE id = $1`, [id]);
    return row ?? null;
  }

  /** A page of the org's requests, newest first (listStatement). */
  async list(orgId: string, filter: ListFilter): Promise<ConfirmationRequest[]> {
    const { sql, params } = listStatement(orgId, filter);
    return this.rows('other', sql, params);
  }

  /** The rows among `ids` that belong to one of `orgIds` (the inbox stream reads a batch of changes at once). */
  async findAmong(ids: string[], orgIds: string[]): Promise<ConfirmationRequest[]> {
    return this.rows(
      'other',
      `SELECT ${COLUMNS} FROM confirmation_requests WHERE id = ANY($1::uuid[]) AND org_id = ANY($2::uuid[])`,
      [ids, orgIds],
    );
  }

  /** The rows among `ids` that are no longer pending (one statement for any number of waiters). */
  async settledAmong(ids: string[], purpose: 'poll' | 'wake'): Promise<ConfirmationRequest[]> {
    return this.rows(
      purpose,
      `SELECT ${COLUMNS} FROM confirmation_requests WHERE id = ANY($1::uuid[]) AND status <> 'pending'`,
      [ids],
    );
  }

  /**
   * Moves a pending row to its final state. A decision (approve/reject) is only taken while the deadline has not
   * passed; expiry is always allowed. Returns null when the row was not pending (someone else settled it first).
   */
  async settle(id: string, s: Settlement): Promise<ConfirmationRequest | null> {
    return this.settling(id, (claim) => settleStatement(id, s, claim));
  }

  /**
   * Records `vote` and settles the request with it in one statement when it decides alone (voteSettleStatement).
   * Returns the row (settled, or pending with the vote counted), or null when the vote was not recorded.
   */
  async voteAndSettle(vote: Vote, s: Omit<Settlement, 'edit'>): Promise<ConfirmationRequest | null> {
    // The vote is told first, settled or not, as a vote alone is (before anything runs on the settlement).
    const voted = (row: ConfirmationRequest) => this.events.emit(CONFIRMATION_VOTED, row);
    return this.settling(vote.confirmationId, (claim) => voteSettleStatement(vote, s, claim), voted);
  }

  /** Runs a statement that may settle request `id` and tells this process what it did (claims, metrics, events). */
  private async settling(
    id: string,
    statement: (claim?: { instanceId: string; leaseMs: number }) => { sql: string; params: unknown[] },
    counted?: (row: ConfirmationRequest) => void,
  ): Promise<ConfirmationRequest | null> {
    const claim = this.config && { instanceId: this.config.instanceId, leaseMs: this.config.runLeaseMs };
    const { sql, params } = statement(claim);
    this.queryCounts.transition++;
    // Marked before the statement: its NOTIFY may be heard before its answer.
    this.ownSettlements.set(id, true);
    let raw: (ConfirmationRow & { claimed_runs?: unknown }) | undefined;
    try {
      raw = (await this.dataSource.query<Array<ConfirmationRow & { claimed_runs?: unknown }>>(sql, params)).at(0);
    } catch (err) {
      this.notSettledHere(id);
      throw err;
    }
    if (!raw) {
      this.notSettledHere(id);
      return null;
    }
    const row = rowToConfirmation(raw);
    counted?.(row);
    // A vote counted without settling: nothing was decided here.
    if (row.status === ConfirmationStatus.Pending) {
      this.ownSettlements.delete(id);
      return row;
    }
    // The engine continues the runs this settlement claimed before it hears of the settlement itself.
    if (claim)
      this.events.emit(PARKED_RUNS_CLAIMED, { confirmationId: row.id, claims: parkedClaimsOf(raw.claimed_runs) });
    if (row.respondedAt && row.status !== ConfirmationStatus.Expired) {
      this.metrics?.approvalDecision
        .labels(row.channelType ?? 'none', row.status)
        .observe((row.respondedAt.getTime() - row.createdAt.getTime()) / 1000);
    }
    this.events.emit(CONFIRMATION_SETTLED, row);
    return row;
  }

  /**
   * Whether this instance settled the request lately (or is settling it): its NOTIFY is then the echo of this
   * instance's own statement, whose in-process events already told everyone here (ConfirmationWaiter).
   */
  isOwnSettlement(id: string): boolean {
    return this.ownSettlements.has(id);
  }

  /**
   * A settlement sent here did not (knowingly) settle the request: another instance's did, or the answer was lost
   * after a commit. Heard as another instance's settlement (CONFIRMATION_NOTIFIED), so a run parked on it is claimed
   * (or found claimed) and watched like one another instance holds.
   */
  private notSettledHere(id: string): void {
    this.ownSettlements.delete(id);
    this.events.emit(CONFIRMATION_NOTIFIED, id);
  }

  /** An edit into a tier its editor alone cannot satisfy: the request now asks about the edit, under that tier. */
  async rebind(
    id: string,
    edit: NonNullable<Settlement['edit']>,
    approvalsRequired: number,
  ): Promise<ConfirmationRequest | null> {
    return (await this.row('transition', REBIND_SQL, [id, ...editValues(edit), approvalsRequired])) ?? null;
  }

  /** Remembers where the card went so it can be replaced by the decided version later. */
  async recordDelivery(
    id: string,
    sent: { platformMessageId?: string; extra?: Record<string, unknown> },
  ): Promise<ConfirmationRequest | null> {
    const params = [id, sent.platformMessageId ?? null, JSON.stringify(sent)];
    return (await this.row('other', RECORD_DELIVERY_SQL, params)) ?? null;
  }
}
