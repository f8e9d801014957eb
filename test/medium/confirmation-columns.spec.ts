import { buildDataSourceOptions } from '@warden/database';
import { actionDigest } from '@warden/hooks';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { expandsColumns } from '../../libs/database/src/named-statements.js';
import { CONFIRMATION_COLUMNS } from '../../libs/confirmations/src/confirmation-row.js';
import {
  INSERT_SQL,
  insertParams,
  REBIND_SQL,
  RECORD_DELIVERY_SQL,
  settleStatement,
  voteSettleStatement,
} from '../../libs/confirmations/src/confirmation-statements.js';
import { ConfirmationStatus } from '../../libs/confirmations/src/confirmation.types.js';
import { addMember, INBOX_REQUEST } from './authorization-instance.js';
import { mediumDb, type MediumDb } from './medium-db.js';

/**
 * The statements that open and decide a request name their columns (CONFIRMATION_COLUMNS) instead of `*`, so they are
 * prepared once per connection — the decision's statement is on the path from an approval to the tool call — and a
 * migration that adds a column later (a rolling deploy) neither breaks nor widens them.
 */
const TOOL = 'oa__purchase_pay';
const CLAIM = { instanceId: 'inst-columns', leaseMs: 30_000 };

describe('confirmation_requests columns (medium)', () => {
  let db: MediumDb;
  let named: DataSource;
  let voter: { userId: string; name: string };

  beforeAll(async () => {
    db = await mediumDb();
    const member = await addMember(db, 'ana');
    voter = { userId: member.userId, name: member.sub };
    // One connection: the prepared statements seen below are the ones this pool's client made.
    named = new DataSource(
      buildDataSourceOptions({ url: db.url, embedded: false, close: () => Promise.resolve() }, 1, 0, true),
    );
    await named.initialize();
  });
  afterAll(async () => {
    await named?.destroy();
    await db?.close();
  });

  it('lists every column of the table (a column added by a migration must be added to the list)', async () => {
    const rows: Array<{ column_name: string }> = await db.dataSource.query(
      `SELECT column_name FROM information_schema.columns WHERE table_name = 'confirmation_requests'`,
    );
    expect([...CONFIRMATION_COLUMNS].sort()).toEqual(rows.map((r) => r.column_name).sort());
  });

  it('builds the open, settle, vote-and-settle, rebind and delivery statements without a star over columns', () => {
    const edit = { args: {}, argsDigest: 'd', byUserId: voter.userId, byName: 'ana', tier: null, approvers: [] };
    const settled = settleStatement('id', { status: ConfirmationStatus.Approved, respondedByName: 'ana', edit }, CLAIM);
    const voted = voteSettleStatement(
      voteOn('id'),
      { status: ConfirmationStatus.Approved, respondedByName: 'ana' },
      CLAIM,
    );
    for (const sql of [INSERT_SQL, settled.sql, voted.sql, REBIND_SQL, RECORD_DELIVERY_SQL])
      expect(expandsColumns(sql)).toBe(false);
  });

  it('decides through a prepared statement that keeps its shape when a column is added', async () => {
    const [first, second] = [await open(), await open()];
    const decide = (id: string) => {
      const { sql, params } = voteSettleStatement(
        voteOn(id),
        { status: ConfirmationStatus.Approved, respondedByName: voter.name, respondedByUserId: voter.userId },
        CLAIM,
      );
      return named.query<Array<Record<string, unknown>>>(sql, params);
    };
    expect((await decide(first))[0]).toMatchObject({ id: first, status: 'approved' });
    const prepared: Array<{ statement: string }> = await named.query(`SELECT statement FROM pg_prepared_statements`);
    expect(prepared.some((p) => p.statement.startsWith('WITH open AS ('))).toBe(true);

    await db.dataSource.query(`ALTER TABLE confirmation_requests ADD COLUMN columns_probe int NOT NULL DEFAULT 7`);
    try {
      const [row] = await decide(second);
      expect(row).toMatchObject({ id: second, status: 'approved' });
      expect(row).not.toHaveProperty('columns_probe');
    } finally {
      await db.dataSource.query(`ALTER TABLE confirmation_requests DROP COLUMN columns_probe`);
    }
  });

  /** A pending request any member may decide, opened through the named pool. */
  async function open(): Promise<string> {
    const args = { id: 'PO-7', amount: 70_000 };
    const params = insertParams({
      orgId: db.orgId,
      ...INBOX_REQUEST,
      runId: randomUUID(),
      callId: randomUUID(),
      tool: TOOL,
      args,
      argsDigest: actionDigest(TOOL, args),
      approvers: ['org_members'],
      tier: null,
      approvalsRequired: 1,
      decisiveFields: [],
      policy: { approvers: ['org_members'], approverScope: 'initiator', forbidSelfApproval: false, tiers: [] },
      policyVersion: 'v1',
    });
    const [row] = await named.query<Array<{ id: string }>>(INSERT_SQL, params);
    return row.id;
  }

  function voteOn(confirmationId: string) {
    return {
      confirmationId,
      userId: voter.userId,
      userName: voter.name,
      decision: 'approve' as const,
      platform: null,
      externalId: null,
      approvers: ['org_members'],
      tier: null,
      argsDigest: null,
      policyVersion: 'v1',
      settles: true,
    };
  }
});
