import type { MemberView } from '@warden/auth';
import { DomainErrorKind, DomainException } from '@warden/common';
import {
  actionDigest,
  HookPoint,
  type AgentHookSettings,
  type HookResult,
  type PreToolUseVerdict,
} from '@warden/hooks';
import { policyInForce } from '@warden/policy';
import { randomUUID } from 'node:crypto';
import type * as fc from 'fast-check';
// Narrow imports: the stores and the decision path, no app, no HTTP.
import { sendRefusal } from '../../libs/agents/src/engine/tool-call-context.js';
import { ConfirmationStatus } from '../../libs/confirmations/src/confirmation.types.js';
import { verdictOf } from '../../libs/confirmations/src/gate/gate-verdict.js';
import { requestPolicy } from '../../libs/confirmations/src/request-policy.js';
import {
  PEOPLE,
  POLICIES,
  referenceAllows,
  referenceCovers,
  referenceMayDecide,
  referenceReassign,
  tierOf,
  type ReassignOutcome,
  type DbModel as Model,
  type PolicyName,
} from './authorization-reference.js';
import { INBOX_REQUEST, type Instance } from './authorization-instance.js';
import type { MediumDb } from './medium-db.js';

/**
 * The commands of authorization-model.db.spec.ts: each acts on the real stores and decision path (on one of two
 * instances) and on the reference model, and checks what the real ones did against what the reference says.
 */
const TOOL = 'oa__purchase_pay';
const SCHEMA = {
  type: 'object',
  properties: { id: { type: 'string' }, amount: { type: 'number' } },
  required: ['id', 'amount'],
};
const settingsOf = (p: PolicyName): AgentHookSettings['confirmation'] => ({
  timeoutS: 600,
  approverScope: 'initiator',
  forbidSelfApproval: false,
  approvers: ['org_members'],
  tiers: [{ when: `args.amount > ${POLICIES[p]}`, approvals: 2, approvers: ['org_admins'] }],
});
export interface Real {
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
export class Ask implements Cmd {
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
      ...INBOX_REQUEST,
      runId: real.runId,
      callId: ctx.callId,
      tool: TOOL,
      args: ctx.toolArgs,
      argsDigest: digest,
      argsSchema: SCHEMA,
    });
    m.requests.push({ id: row.id, amount: this.amount, openedUnder: m.policy, sent: false });
  }
  toString = () => `ask(${this.amount}@${this.on})`;
}

/** One person's decision through the real decision path; refusals (4xx) change nothing in the model. */
export class Decide implements Cmd {
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
    const mayDecide = referenceMayDecide(r, this.who);
    const store = real.instances[this.on].store;
    const before = new Map((await store.findByRun(real.runId)).map((row) => [row.id, row.status]));
    try {
      const row = await real.instances[this.on].decisions.decide({
        orgId: real.db.orgId,
        confirmationId: r.id,
        decision: this.approve ? 'approve' : 'reject',
        ...(this.edit !== undefined ? { args: { id: 'PO', amount: this.edit } } : {}),
        ...(this.bound !== undefined ? { standing: { when: `args.amount <= ${this.bound}` } } : {}),
        actor: { userId: user.userId },
      });
      // Once reassigned, nobody but the assignee decides (the hand-over is checked here, the counting in Send).
      expect(mayDecide).toBe(true);
      if (!this.approve) return;
      // An edit (other args) re-enters decide: the request, settled or rebound, is bound to their tier's approvers.
      if (this.edit !== undefined && this.edit !== r.amount) r.assignee = undefined;
      if (this.edit !== undefined) r.amount = this.edit;
      m.votes.push({ who: this.who, request: r.id, amount: r.amount, under: r.openedUnder });
      if (this.bound !== undefined && row.status === ConfirmationStatus.Approved) {
        const tier = tierOf(r.openedUnder, r.amount).tier;
        m.standing.push({ who: this.who, bound: this.bound, under: r.openedUnder, tier });
        await this.coverWaiting(m, r, tier, this.bound, before, store);
      }
    } catch (err) {
      if (!(err instanceof DomainException)) throw err;
    }
  }
  /** The grant also settles the requests of the run waiting when it was given, exactly those the reference covers. */
  private async coverWaiting(
    m: Model,
    r: Model['requests'][number],
    tier: number | null,
    bound: number,
    before: Map<string, string>,
    store: Real['instances'][0]['store'],
  ): Promise<void> {
    for (const o of m.requests) {
      if (o.id === r.id || before.get(o.id) !== ConfirmationStatus.Pending) continue;
      const t = tierOf(o.openedUnder, o.amount);
      const covers =
        o.openedUnder === r.openedUnder &&
        t.approvals === 1 &&
        t.tier === tier &&
        o.amount <= bound &&
        referenceMayDecide(o, this.who);
      const now = await store.findById(o.id);
      expect(`${o.id} ${now?.status}`).toBe(
        `${o.id} ${covers ? ConfirmationStatus.Approved : ConfirmationStatus.Pending}`,
      );
      if (covers) m.votes.push({ who: this.who, request: o.id, amount: o.amount, under: o.openedUnder });
    }
  }
  toString = () =>
    `${this.who} ${this.approve ? 'approves' : 'rejects'} #${this.pick}${this.edit !== undefined ? ` as ${this.edit}` : ''}${this.bound !== undefined ? ` standing<=${this.bound}` : ''}@${this.on}`;
}

const OUTCOME: Record<string, ReassignOutcome> = {
  [DomainErrorKind.Forbidden]: 'forbidden',
  [DomainErrorKind.BadInput]: 'bad_input',
  [DomainErrorKind.Conflict]: 'conflict',
};

/** Someone (an approver or not) hands a request to someone: the outcome is the reference's, and so who may approve. */
export class Reassign implements Cmd {
  constructor(
    readonly by: (typeof PEOPLE)[number],
    readonly to: (typeof PEOPLE)[number],
    readonly pick: number,
    readonly on: 0 | 1,
  ) {}
  check = (m: Readonly<Model>) => m.requests.length > 0;
  async run(m: Model, real: Real): Promise<void> {
    const r = m.requests[this.pick % m.requests.length];
    const row = (await real.instances[this.on].store.findById(r.id))!;
    const tier = tierOf(r.openedUnder, r.amount);
    expect(row.tier).toBe(tier.tier);
    expect(row.approvers).toEqual(r.assignee ? [`users:${r.assignee}`] : [tier.admins ? 'org_admins' : 'org_members']);
    const pending = row.status === ConfirmationStatus.Pending;
    const expected = referenceReassign(m, r, this.by, this.to, {
      pending,
      missing: row.approvalsRequired - row.approvalsGiven,
    });
    let outcome: ReassignOutcome = 'moved';
    try {
      const input = {
        orgId: real.db.orgId,
        confirmationId: r.id,
        actorUserId: real.users.get(this.by)!.userId,
        toSub: this.to,
      };
      const moved = await real.instances[this.on].reassignment.reassign(input);
      expect(moved.approvers).toEqual([`users:${this.to}`]);
    } catch (err) {
      if (!(err instanceof DomainException)) throw err;
      outcome = OUTCOME[err.kind] ?? err.kind;
    }
    expect(outcome).toBe(expected);
    if (outcome === 'moved') r.assignee = this.to;
  }
  toString = () => `${this.by} reassigns #${this.pick} to ${this.to}@${this.on}`;
}

export class ChangePolicy implements Cmd {
  check = () => true;
  run(m: Model): Promise<void> {
    m.policy = m.policy === 'P1' ? 'P2' : 'P1';
    return Promise.resolve();
  }
  toString = () => 'policy change';
}

/** The gate resumes the decided calls (on either instance) and the executor's kernel check decides what is sent. */
export class Send implements Cmd {
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
