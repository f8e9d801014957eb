import type { MemberView } from '@warden/auth';
import { DomainException } from '@warden/common';
import { actionDigest, HookPoint, type AgentHookSettings, type HookResult, type PreToolUseVerdict } from '@warden/hooks';
import { policyInForce } from '@warden/policy';
import { randomUUID } from 'node:crypto';
import * as fc from 'fast-check';
// Narrow imports: the stores and the decision path, no app, no HTTP.
import { sendRefusal } from '../../libs/agents/src/engine/tool-call-context.js';
import { ConfirmationStatus } from '../../libs/confirmations/src/confirmation.types.js';
import { verdictOf } from '../../libs/confirmations/src/gate/gate-verdict.js';
import { requestPolicy } from '../../libs/confirmations/src/request-policy.js';
import {
  ADMINS,
  PEOPLE,
  POLICIES,
  referenceAllows,
  referenceCovers,
  tierOf,
  type DbModel as Model,
  type PolicyName,
} from './authorization-reference.js';
import { instance, type Instance } from './authorization-instance.js';
import { mediumDb, type MediumDb } from './medium-db.js';

/**
 * Acceptance 2 of #28 (database part): random sequences of asks, votes (with edits and standing grants), policy
 * changes and sends against the real stores and decision path on PostgreSQL, alternating between two instances
 * (fresh stores and deciders on the same database: a call resumed elsewhere). The reference (authorization-reference.ts, on plain
 * numbers) says what may be sent: exactly the amount a set of distinct qualifying people approved, under the policy
 * in force, at its tier — or a standing grant of the same run, tier and policy.
 * Reassignment is left to the "grants" work (#28 break 6): today it can hand a vote to someone the tier does not name.
 */
const TOOL = 'oa__purchase_pay';
const SCHEMA = { type: 'object', properties: { id: { type: 'string' }, amount: { type: 'number' } }, required: ['id', 'amount'] };
const settingsOf = (p: PolicyName): AgentHookSettings['confirmation'] => ({
  timeoutS: 600,
  approverScope: 'initiator',
  forbidSelfApproval: false,
  approvers: ['org_members'],
  tiers: [{ when: `args.amount > ${POLICIES[p]}`, approvals: 2, approvers: ['org_admins'] }],
});
interface Real {
  db: MediumDb;
  instances: [Instance, Instance];
  users: Map<string, MemberView>;
  runId: string;
}

type Cmd = fc.AsyncCommand<Model, Real>;

/** The executor's kernel check (ToolCallRunner: sendRefusal) on an approval the gate gave. */
function sends(approval: NonNullable<HookResult['approval']>, args: Record<string, unknown>): boolean {
  const verdict: PreToolUseVerdict = { allow: true, args, approval, wouldRequireConfirmation: false, outcomes: [] };
  return sendRefusal(verdict, TOOL, args) === null;
}
const callCtx = (real: Real, amount: number) => ({
  toolName: TOOL,
  toolArgs: { id: 'PO', amount },
  agentId: 'agent',
  userId: '',
  orgId: real.db.orgId,
  runId: real.runId,
  callId: randomUUID(),
  surface: 'chat' as const,
  point: HookPoint.PreToolUse,
  metadata: {},
  emit: () => Promise.resolve(),
  signal: new AbortController().signal,
});

/** A call of the run: a standing grant may cover it (then it is sent), else a request is opened. */
class Ask implements Cmd {
  constructor(
    readonly amount: number,
    readonly on: 0 | 1,
  ) {}
  check = () => true;
  async run(m: Model, real: Real): Promise<void> {
    const ctx = callCtx(real, this.amount);
    const digest = actionDigest(TOOL, ctx.toolArgs);
    const covered = await real.instances[this.on].standing.coverCall(ctx, digest, settingsOf(m.policy));
    const sent = covered?.approval ? sends(covered.approval, ctx.toolArgs) : false;
    expect(sent).toBe(referenceCovers(m, this.amount));
    if (sent) {
      m.sends++;
      return;
    }
    const fixed = requestPolicy(settingsOf(m.policy), ctx.toolArgs, {}, false);
    const { row } = await real.instances[this.on].store.insertOrGet({
      ...fixed,
      orgId: real.db.orgId,
      agentId: null,
      agentName: null,
      runId: real.runId,
      callId: ctx.callId,
      tool: TOOL,
      args: ctx.toolArgs,
      argsDigest: digest,
      requestedBy: null,
      approverScope: 'initiator',
      agentOwnerId: null,
      forbidSelfApproval: false,
      channelId: 'none',
      channelType: 'inbox',
      timeoutS: 600,
      argsSchema: SCHEMA,
    });
    m.requests.push({ id: row.id, amount: this.amount, openedUnder: m.policy, sent: false });
  }
  toString = () => `ask(${this.amount}@${this.on})`;
}

/** One person's decision through the real decision path; refusals (4xx) change nothing in the model. */
class Decide implements Cmd {
  constructor(
    readonly who: (typeof PEOPLE)[number],
    readonly pick: number,
    readonly approve: boolean,
    readonly edit: number | undefined,
    readonly bound: number | undefined,
    readonly on: 0 | 1,
  ) {}
  check = (m: Readonly<Model>) => m.requests.length > 0;
  async run(m: Model, real: Real): Promise<void> {
    const r = m.requests[this.pick % m.requests.length];
    const user = real.users.get(this.who)!;
    try {
      const row = await real.instances[this.on].decisions.decide({
        orgId: real.db.orgId,
        confirmationId: r.id,
        decision: this.approve ? 'approve' : 'reject',
        ...(this.edit !== undefined ? { args: { id: 'PO', amount: this.edit } } : {}),
        ...(this.bound !== undefined ? { standing: { when: `args.amount <= ${this.bound}` } } : {}),
        actor: { userId: user.userId },
      });
      if (!this.approve) return;
      if (this.edit !== undefined) r.amount = this.edit;
      m.votes.push({ who: this.who, request: r.id, amount: r.amount, under: r.openedUnder });
      if (this.bound !== undefined && row.status === ConfirmationStatus.Approved)
        m.standing.push({ who: this.who, bound: this.bound, under: r.openedUnder, tier: tierOf(r.openedUnder, r.amount).tier });
    } catch (err) {
      if (!(err instanceof DomainException)) throw err;
    }
  }
  toString = () =>
    `${this.who} ${this.approve ? 'approves' : 'rejects'} #${this.pick}${this.edit !== undefined ? ` as ${this.edit}` : ''}${this.bound !== undefined ? ` standing<=${this.bound}` : ''}@${this.on}`;
}

class ChangePolicy implements Cmd {
  check = () => true;
  run(m: Model): Promise<void> {
    m.policy = m.policy === 'P1' ? 'P2' : 'P1';
    return Promise.resolve();
  }
  toString = () => 'policy change';
}

/** The gate resumes the decided calls (on either instance) and the executor's kernel check decides what is sent. */
class Send implements Cmd {
  constructor(readonly on: 0 | 1) {}
  check = (m: Readonly<Model>) => m.requests.length > 0;
  async run(m: Model, real: Real): Promise<void> {
    for (const r of m.requests.filter((q) => !q.sent)) {
      const row = await real.instances[this.on].store.findById(r.id);
      if (row?.status !== ConfirmationStatus.Approved) continue;
      const verdict = verdictOf(row, {}, policyInForce(settingsOf(m.policy)));
      const args = verdict.modifiedArgs ?? row.args;
      // What people approved is what the gate hands on.
      expect(args.amount).toBe(r.amount);
      const sent = verdict.approval ? sends(verdict.approval, args) : false;
      expect(sent).toBe(referenceAllows(m, r, r.amount));
      if (sent) {
        r.sent = true;
        m.sends++;
      }
    }
  }
  toString = () => `send@${this.on}`;
}

const amount = fc.constantFrom(60_000, 90_000, 300_000, 600_000, 900_000);
const on = fc.constantFrom<0 | 1>(0, 1);
/** Mostly nothing (a plain decision), sometimes the value. */
const sometimes = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: arb, weight: 1 });
const decide = fc
  .tuple(fc.constantFrom(...PEOPLE), fc.nat(5), fc.nat(9), sometimes(amount), sometimes(fc.constantFrom(100_000, 700_000, 1_000_000)), on)
  .map(([w, p, a, e, b, i]) => new Decide(w, p, a > 0, e, b, i));
const send = on.map((i) => new Send(i));
const commands = fc.commands(
  [fc.tuple(amount, on).map(([a, i]) => new Ask(a, i)), decide, decide, fc.constant(new ChangePolicy()), send, send],
  { maxCommands: 16, size: 'max' },
);

describe('authorization kernel and stores against the reference model (PostgreSQL, fc.commands)', () => {
  let db: MediumDb;
  const users = new Map<string, MemberView>();
  let instances: [Instance, Instance];
  let totalSends = 0;

  beforeAll(async () => {
    db = await mediumDb();
    for (const sub of PEOPLE) {
      const [{ id }] = await db.dataSource.query<Array<{ id: string }>>(`INSERT INTO users (sub, name) VALUES ($1, $1) RETURNING id`, [
        sub,
      ]);
      const roles = ADMINS.has(sub) ? ['admin'] : [];
      await db.dataSource.query(`INSERT INTO org_members (org_id, user_id, roles) VALUES ($1, $2, $3)`, [db.orgId, id, roles]);
      const member = { userId: id, sub, email: null, name: sub, roles, identities: {} };
      users.set(sub, member).set(id, member);
    }
    const byId = new Map([...users.values()].map((u) => [u.userId, u]));
    instances = [instance(db, byId), instance(db, byId)];
  });
  afterAll(async () => db?.close());

  it('a few hundred random sequences: sent exactly what the reference allows', async () => {
    await fc.assert(
      fc.asyncProperty(commands, async (cmds) => {
        const model: Model = { policy: 'P1', requests: [], votes: [], standing: [], sends: 0 };
        await fc.asyncModelRun(() => ({ model, real: { db, instances, users, runId: randomUUID() } }), cmds);
        totalSends += model.sends;
      }),
      { numRuns: 300 },
    );
    // Not vacuous: sequences do send (typically 40-80 sends over the 300 runs).
    expect(totalSends).toBeGreaterThan(10);
  });
});
