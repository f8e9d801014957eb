import { EventEmitter2 } from '@nestjs/event-emitter';
import type { MemberView } from '@warden/auth';
import { ConflictError } from '@warden/common';
import { actionDigest } from '@warden/hooks';
import { randomUUID } from 'node:crypto';
// Narrow imports: the stores and the decision path, no app, no HTTP.
import { ConfirmationVotesStore } from '../../libs/confirmations/src/confirmation-votes.store.js';
import { ConfirmationStatus } from '../../libs/confirmations/src/confirmation.types.js';
import { addMember, INBOX_REQUEST, instance, type Instance } from './authorization-instance.js';
import { mediumDb, type MediumDb } from './medium-db.js';

/**
 * A vote that settles a request on its own (a rejection, or the one approval it needs) is recorded and applied in one
 * statement (voteSettleStatement): nothing can fall between the vote and the settlement, and under concurrent
 * decisions exactly one is recorded. A vote that does not decide alone on the locked row is counted and leaves the
 * request pending, as a vote alone would.
 */
const TOOL = 'oa__purchase_pay';
const PEOPLE = ['ana', 'ben', 'cai', 'dee', 'eli', 'fay'] as const;

describe('a vote that decides alone is one statement', () => {
  let db: MediumDb;
  let one: Instance;
  const users = new Map<string, MemberView>();

  beforeAll(async () => {
    db = await mediumDb();
    for (const sub of PEOPLE) {
      const member = await addMember(db, sub);
      users.set(member.userId, member);
    }
    one = instance(db, users);
  });
  afterAll(async () => db?.close());

  const idOf = (sub: (typeof PEOPLE)[number]) => [...users.values()].find((u) => u.sub === sub)!.userId;

  /** A pending request any member may decide, needing `approvals`. */
  async function ask(approvals = 1) {
    const args = { id: 'PO', amount: 100 };
    const { row } = await one.store.insertOrGet({
      orgId: db.orgId,
      ...INBOX_REQUEST,
      runId: randomUUID(),
      callId: randomUUID(),
      tool: TOOL,
      args,
      argsDigest: actionDigest(TOOL, args),
      approvers: ['org_members'],
      tier: null,
      approvalsRequired: approvals,
      decisiveFields: [],
      policy: { approvers: ['org_members'], approverScope: 'initiator', forbidSelfApproval: false, tiers: [] },
      policyVersion: 'v1',
    });
    return row;
  }
  const decide = (id: string, sub: (typeof PEOPLE)[number], decision: 'approve' | 'reject') =>
    one.decisions.decide({ orgId: db.orgId, confirmationId: id, decision, actor: { userId: idOf(sub) } });
  const votesOf = (id: string) =>
    db.dataSource.query<Array<{ user_id: string; decision: string }>>(
      `SELECT user_id, decision FROM confirmation_votes WHERE confirmation_id = $1`,
      [id],
    );
  /** Statements of the last decision that wrote the request or its votes. */
  const writes = () => db.statements.filter((s) => /^(WITH|INSERT|UPDATE)/.test(s));

  it('the one approval a request needs: one write, the request approved with that vote as its only grant', async () => {
    const row = await ask();
    db.resetCount();
    const settled = await decide(row.id, 'ana', 'approve');
    expect(writes()).toHaveLength(1);
    expect(settled.status).toBe(ConfirmationStatus.Approved);
    expect(settled.approvalsGiven).toBe(1);
    expect(settled.grants).toEqual([
      { kind: 'vote', principal: idOf('ana'), digest: row.argsDigest, policyVersion: 'v1', tier: null },
    ]);
    expect(await votesOf(row.id)).toEqual([{ user_id: idOf('ana'), decision: 'approve' }]);
  });

  it('a rejection of a two-approval request with one approval in: one write, rejected, no grants', async () => {
    const row = await ask(2);
    expect((await decide(row.id, 'ana', 'approve')).status).toBe(ConfirmationStatus.Pending);
    db.resetCount();
    const settled = await decide(row.id, 'ben', 'reject');
    expect(writes()).toHaveLength(1);
    expect(settled.status).toBe(ConfirmationStatus.Rejected);
    expect(settled.grants ?? null).toBeNull();
    expect((await votesOf(row.id)).map((v) => v.decision).sort()).toEqual(['approve', 'reject']);
  });

  it('six people decide a one-approval request at once: one decision recorded, the others change nothing', async () => {
    for (let round = 0; round < 5; round++) {
      const row = await ask();
      const outcomes = await Promise.allSettled(
        PEOPLE.map((sub, i) => decide(row.id, sub, i % 2 === 0 ? 'approve' : 'reject')),
      );
      const won = outcomes.filter((o) => o.status === 'fulfilled');
      expect(won).toHaveLength(1);
      for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(ConflictError);
      const votes = await votesOf(row.id);
      expect(votes).toHaveLength(1);
      const now = (await one.store.findById(row.id))!;
      expect(now.status).toBe(votes[0].decision === 'approve' ? 'approved' : 'rejected');
      expect(now.respondedByUserId).toBe(votes[0].user_id);
      expect(now.grants?.map((g) => g.principal) ?? []).toEqual(
        votes[0].decision === 'approve' ? [votes[0].user_id] : [],
      );
    }
  });

  it('the approval completing a quorum of two, its settlement lost after the vote: the next attempt settles it', async () => {
    const row = await ask(2);
    expect((await decide(row.id, 'eli', 'approve')).status).toBe(ConfirmationStatus.Pending);
    // Fay's vote committed, the statement settling after it never did (a dropped connection, a crash).
    const votes = new ConfirmationVotesStore(db.dataSource, new EventEmitter2());
    const counted = await votes.record({
      confirmationId: row.id,
      userId: idOf('fay'),
      userName: 'fay',
      decision: 'approve',
      platform: null,
      externalId: null,
      approvers: ['org_members'],
      tier: null,
      argsDigest: row.argsDigest,
      policyVersion: 'v1',
    });
    expect(counted).toMatchObject({ status: ConfirmationStatus.Pending, approvalsGiven: 2 });
    const settled = await decide(row.id, 'fay', 'approve');
    expect(settled.status).toBe(ConfirmationStatus.Approved);
    expect(settled.grants?.map((g) => g.principal)).toEqual([idOf('eli'), idOf('fay')]);
    await expect(decide(row.id, 'fay', 'approve')).rejects.toBeInstanceOf(ConflictError);
  });

  it('a request that needs two approvals by the time the vote is applied: counted, left pending', async () => {
    const row = await ask(2);
    // As if it read the request before a rebind raised it to two approvals: the statement checks the locked row.
    const counted = await one.store.voteAndSettle(
      {
        confirmationId: row.id,
        userId: idOf('cai'),
        userName: 'cai',
        decision: 'approve',
        platform: null,
        externalId: null,
        approvers: ['org_members'],
        tier: null,
        argsDigest: row.argsDigest,
        policyVersion: 'v1',
      },
      { status: ConfirmationStatus.Approved, respondedByUserId: idOf('cai'), respondedByName: 'cai' },
    );
    expect(counted?.status).toBe(ConfirmationStatus.Pending);
    expect(counted?.approvalsGiven).toBe(1);
    expect(counted?.grants ?? null).toBeNull();
    // The second approval settles it, with both grants.
    const settled = await decide(row.id, 'dee', 'approve');
    expect(settled.status).toBe(ConfirmationStatus.Approved);
    expect(settled.grants?.map((g) => g.principal)).toEqual([idOf('cai'), idOf('dee')]);
  });
});
