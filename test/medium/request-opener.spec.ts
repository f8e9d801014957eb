import type { MemberView } from '@warden/auth';
import type { ChannelsService } from '@warden/channels';
import { actionDigest, HookPoint, type HookContext, type ToolCallMetadata } from '@warden/hooks';
import { randomUUID } from 'node:crypto';
// Narrow imports: the gate's request opener on real SQL, no app, no HTTP.
import { ApprovalRequestOpener } from '../../libs/confirmations/src/gate/approval-request-opener.js';
import { SettledHere } from '../../libs/confirmations/src/gate/settled-here.js';
import { ConfirmationStatus } from '../../libs/confirmations/src/confirmation.types.js';
import { addMember, instance, type Instance } from './authorization-instance.js';
import { mediumDb, type MediumDb } from './medium-db.js';

/**
 * The gate opens a call's approval request (ApprovalRequestOpener.open). A call recorded in the model turn its driver
 * runs now (`newInTurn`: a new call id) has no request yet: the request is recorded without a read for an earlier
 * one, one statement fewer per gated call. A call seen again (a resumed run) finds the request it has.
 */
const TOOL = 'oa__purchase_pay';
const ARGS = { id: 'PO-31', amount: 60_000 };
const POLICY = { timeoutS: 600, approverScope: 'org_members' as const, forbidSelfApproval: false };
const INBOX = { id: 'inbox', type: 'inbox', name: 'Inbox', config: {} };
const READS_REQUEST = 'SELECT id, org_id, agent_id, agent_name, run_id, call_id';
const READS_STANDING_USE = 'SELECT s.*, u.args_digest AS use_digest';

describe("the gate's request opener (medium)", () => {
  let db: MediumDb;
  let one: Instance;
  let opener: ApprovalRequestOpener;
  let member: MemberView;

  beforeAll(async () => {
    db = await mediumDb();
    member = await addMember(db, 'ana');
    one = instance(db, new Map([[member.userId, member]]));
    const channels = {
      resolveForDelivery: () => Promise.resolve({ record: INBOX, impl: { approverAllowList: () => undefined } }),
    } as unknown as ChannelsService;
    opener = new ApprovalRequestOpener(one.store, channels, one.standing, one.waiting, new SettledHere());
  });
  afterAll(async () => db?.close());

  const contextOf = (runId: string, callId: string, metadata: ToolCallMetadata): HookContext => ({
    point: HookPoint.PreToolUse,
    toolName: TOOL,
    toolArgs: ARGS,
    agentId: randomUUID(),
    userId: member.userId,
    orgId: db.orgId,
    runId,
    callId,
    surface: 'chat',
    metadata: { requiresConfirmation: true, ...metadata },
    emit: () => Promise.resolve(),
    signal: new AbortController().signal,
  });
  const open = (runId: string, callId: string, metadata: ToolCallMetadata = {}) =>
    opener.open(contextOf(runId, callId, metadata), callId, POLICY, actionDigest(TOOL, ARGS));
  const readsOfRequests = () => db.statements.filter((s) => s.startsWith(READS_REQUEST));

  it('records the request of a call new in its turn without reading for an earlier one or a standing use', async () => {
    const [runId, callId] = [randomUUID(), randomUUID()];
    db.resetCount();
    const opened = await open(runId, callId, { newInTurn: true });
    expect(opened).toMatchObject({ created: true, row: { runId, callId, status: ConfirmationStatus.Pending } });
    expect(readsOfRequests()).toEqual([]);
    expect(db.statements.filter((s) => s.startsWith(READS_STANDING_USE))).toEqual([]);
    expect(
      db.statements.filter((s) => s.startsWith('WITH inserted AS (INSERT INTO confirmation_requests')),
    ).toHaveLength(1);
  });

  it('finds the request a call already has when it is seen again (a resumed run)', async () => {
    const [runId, callId] = [randomUUID(), randomUUID()];
    const first = await open(runId, callId, { newInTurn: true });
    db.resetCount();
    const again = await open(runId, callId);
    expect(again).toEqual({
      row: expect.objectContaining({ id: (first as { row: { id: string } }).row.id }),
      created: false,
    });
    expect(readsOfRequests()).toHaveLength(1);
  });

  it('a call seen again that took a standing approval keeps its use (read again, not taken twice)', async () => {
    const runId = randomUUID();
    // An approval of this run's first call, standing for its later calls of the same kind.
    const asked = await open(runId, randomUUID(), { newInTurn: true });
    const { row } = asked as { row: { id: string } };
    const decision = { decision: 'approve' as const, standing: { when: 'args.amount <= 100000' } };
    await one.decisions.decide({
      orgId: db.orgId,
      confirmationId: row.id,
      actor: { userId: member.userId },
      ...decision,
    });
    const usesOf = async (): Promise<number> => {
      const rows: Array<{ uses: number }> = await db.dataSource.query(
        `SELECT uses FROM standing_approvals WHERE run_id = $1`,
        [runId],
      );
      return rows[0].uses;
    };
    const before = await usesOf();

    const callId = randomUUID();
    expect(await open(runId, callId, { newInTurn: true })).toMatchObject({ allow: true });
    expect(await usesOf()).toBe(before + 1);
    db.resetCount();
    expect(await open(runId, callId)).toMatchObject({ allow: true });
    expect(db.statements.filter((s) => s.startsWith(READS_STANDING_USE))).toHaveLength(1);
    expect(await usesOf()).toBe(before + 1);
  });

  it('returns the existing request, not a second one, should a call marked new have one', async () => {
    const [runId, callId] = [randomUUID(), randomUUID()];
    const first = await open(runId, callId, { newInTurn: true });
    const twice = await open(runId, callId, { newInTurn: true });
    expect(twice).toMatchObject({ created: false, row: { id: (first as { row: { id: string } }).row.id } });
    const { length } = await one.store.findByRun(runId);
    expect(length).toBe(1);
  });
});
