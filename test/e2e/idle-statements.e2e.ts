import path from 'node:path';
import { until } from '../support/eventually.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { payingModel, startHarness, startProcesses, type Harness, type ProcessHarness } from './process-harness.js';
import type { SseEvent } from './runtime-helpers.js';

const COUNTER = path.resolve(import.meta.dirname, '../support/statement-counter.cjs');
/** The counter's own tick, and every interval of the instance shortened to it: one tick = one chance to sweep. */
const TICK_MS = 100;
/** Every loop of the instance at one tick, the lease at its minimum, and the counter reporting each tick. */
const SHORT_INTERVALS = {
  RUN_RECOVERY_MS: String(TICK_MS),
  CONFIRMATION_POLL_MS: String(TICK_MS),
  CONFIRMATION_ESCALATION_POLL_MS: String(TICK_MS),
  RUN_LEASE_MS: '1000',
  STATEMENT_COUNTER_TICK_MS: String(TICK_MS),
};

interface CounterReport {
  ticks: number;
  statements: number;
  recent: string[];
}

/** The counter's latest report in the process's output. */
function lastReport(server: ServerProcess): CounterReport | undefined {
  const lines = server.output().match(/\[statement-counter\] .*/g);
  return lines
    ? (JSON.parse(lines[lines.length - 1].slice('[statement-counter] '.length)) as CounterReport)
    : undefined;
}

/** Waits until the process has counted `ticks` ticks of its own: the barrier, not a sleep in the test. */
const afterTicks = (server: ServerProcess, ticks: number) =>
  until(`${ticks} ticks of the instance`, () => {
    const report = lastReport(server);
    return report && report.ticks >= ticks ? report : undefined;
  });

/** After `settle` ticks for what is under way to end, the process sends no statement over `ticks` more ticks. */
async function expectNoStatements(server: ServerProcess, settle: number, ticks: number): Promise<void> {
  const settled = await afterTicks(server, (lastReport(server)?.ticks ?? 0) + settle);
  const later = await afterTicks(server, settled.ticks + ticks);
  expect({ statements: later.statements - settled.statements, recent: later.recent }).toEqual({
    statements: 0,
    recent: settled.recent,
  });
}

/**
 * An instance with nothing to do sends no statement (issue 30, break 1): no run recovery sweep, no workflow
 * recovery sweep, no escalation poll, no lease renewal when it holds no lease. The statements are counted in the
 * server process itself (a `pg` preload), over many intervals of every loop, each shortened to one tick.
 */
describe('an idle instance sends no statement (server process, PostgreSQL)', () => {
  let h: ProcessHarness;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    h = await startProcesses({ env: SHORT_INTERVALS });
  });
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await server?.exited;
    await h?.close();
  });

  it('with no run, no workflow and no approval: 0 statements over 30 intervals of every loop', async () => {
    server = await startServerProcess(h.env, { nodeArgs: ['--require', COUNTER], timeoutMs: 90_000 });
    // Settled: healthy (the start waited for it), and startup's first sweeps have had 10 ticks to end.
    await expectNoStatements(server, 10, 30);
  });
});

/**
 * A paying model, a connector fake and a harness, set up and torn down around the describe; each test starts the
 * counted server itself (`t.server`). The harness's own set-up instance is stopped: only the counted one runs.
 */
function payingInstance(env: Record<string, string>) {
  const t = {} as { llm: FakeOpenAI; oa: HttpFake; h: Harness; server?: ServerProcess };
  beforeAll(async () => {
    t.llm = await startFakeOpenAI(payingModel);
    t.oa = await startHttpFake(() => ({ paid: true }));
    t.h = await startHarness({ llm: t.llm, oa: t.oa, env });
    await (await t.h.start()).stop();
  }, 120_000);
  afterAll(async () => {
    t.server?.child.kill('SIGKILL');
    await t.server?.exited;
    await t.h?.close();
    await t.llm?.close();
    await t.oa?.close();
  });
  return t;
}

type PayingInstance = ReturnType<typeof payingInstance>;

const approvalPending = (e: SseEvent) => e.event === 'confirmation_pending';

/** The run a chat's first events tell of (read up to its approval request), once it is parked in the database. */
async function parkedRun(t: PayingInstance, events: SseEvent[]): Promise<{ runId: string; confirmationId: string }> {
  const runId = events[0].data.run_id as string;
  const confirmationId = events.find(approvalPending)!.data.confirmation_id as string;
  await until('the run parked', async () => {
    const { rows } = await t.h.sql.query(`SELECT parked_on FROM agent_runs WHERE id = $1`, [runId]);
    return rows[0]?.parked_on !== null;
  });
  return { runId, confirmationId };
}

/** Approves the parked run's call on the counted server. */
async function approve(t: PayingInstance, confirmationId: string): Promise<void> {
  const path = `/api/confirmations/${confirmationId}/decision`;
  expect((await t.h.api(t.server!, 'POST', path, { decision: 'approve' })).status).toBe(200);
}

/** Waits until the run completed. */
const completed = (t: PayingInstance, runId: string) =>
  until('the run completed', async () => {
    const { rows } = await t.h.sql.query(`SELECT status FROM agent_runs WHERE id = $1`, [runId]);
    return rows[0]?.status === 'completed';
  });

/** The statements the counted server sent since report `started`, read `ticks` ticks from now (recent ones kept). */
async function statementsSince(server: ServerProcess, started: CounterReport, ticks: number): Promise<string[]> {
  const later = await afterTicks(server, (lastReport(server)?.ticks ?? 0) + ticks);
  return later.recent.slice(later.recent.length - (later.statements - started.statements));
}

describe('a run parked on an approval costs no statement while it waits (server process, PostgreSQL)', () => {
  const t = payingInstance(SHORT_INTERVALS);

  it('parked: 0 statements over 30 intervals of every loop; the approval then continues it, paid once', async () => {
    t.server = await startServerProcess(t.h.env, { nodeArgs: ['--require', COUNTER], timeoutMs: 90_000 });
    const events = await t.h.chatUntil(t.server, 'Pay PO-IDLE amount 60000', approvalPending);
    const { runId, confirmationId } = await parkedRun(t, events);
    // Settled: the sweep due one lease period after the run's last event has run (and found only a far deadline).
    await expectNoStatements(t.server, 20, 30);

    await approve(t, confirmationId);
    await completed(t, runId);
    expect(t.oa.requests.filter((r) => r.path === '/purchases/PO-IDLE/pay')).toHaveLength(1);
  });
});

/** What a recovery sweep sends: claiming expired leases of runs or evals, or asking when the next one is due. */
const RECOVERY_SWEEP =
  /due_in_ms FROM \( SELECT min\(COALESCE\(lease_until|^UPDATE (agent_runs|evals|workflow_runs) SET locked_by/;

describe('a run that parks here arms no recovery sweep of this instance (server process, PostgreSQL)', () => {
  const t = payingInstance({ ...SHORT_INTERVALS, STATEMENT_COUNTER_RECENT: '400' });

  it('from the park on, 30 ticks (3 lease periods): no sweep of runs, evals or workflow runs', async () => {
    t.server = await startServerProcess(t.h.env, { nodeArgs: ['--require', COUNTER], timeoutMs: 90_000 });
    // Settled: startup's sweeps have run and found nothing.
    const started = await afterTicks(t.server, (lastReport(t.server)?.ticks ?? 0) + 10);
    await parkedRun(t, await t.h.chatUntil(t.server, 'Pay PO-QUIET amount 60000', approvalPending));
    // The run's events were this instance's own: should it die, another instance's sweep (it heard them) or its own
    // restart takes the run; while it lives, it drives what it started.
    expect((await statementsSince(t.server, started, 30)).filter((s) => RECOVERY_SWEEP.test(s))).toEqual([]);
  }, 120_000);
});

describe('a parked run whose stream is open costs no statement while it waits (server process, PostgreSQL)', () => {
  const t = payingInstance(SHORT_INTERVALS);

  it('stream open: 0 statements over 60 ticks (longer than any safety-net period); the approval reaches the same stream', async () => {
    t.server = await startServerProcess(t.h.env, { nodeArgs: ['--require', COUNTER], timeoutMs: 90_000 });
    const stream = await t.h.openChat(t.server, 'Pay PO-WATCHED amount 60000');
    try {
      const { confirmationId } = await parkedRun(t, await stream.until(approvalPending));
      await expectNoStatements(t.server, 20, 60);

      await approve(t, confirmationId);
      // The stream opened before the wait tells the rest of the run.
      const rest = await stream.until((e) => e.event === 'done');
      expect(rest.map((e) => e.event)).toEqual(expect.arrayContaining(['confirmation_resolved', 'answer', 'done']));
      expect(t.oa.requests.filter((r) => r.path === '/purchases/PO-WATCHED/pay')).toHaveLength(1);
    } finally {
      stream.close();
    }
  }, 120_000);
});

/** The statements that read or write an org's run configuration or its members (what caches exist to spare). */
const CONFIGURATION =
  /FROM "?(agents|org_hooks|connectors|connector_actions|mcp_servers|orgs|policy_shadows)"?\b|INTO (orgs|users|org_members)\b/i;

describe('a chat run after the first reads no configuration (server process, PostgreSQL)', () => {
  const t = payingInstance({ STATEMENT_COUNTER_TICK_MS: String(TICK_MS), STATEMENT_COUNTER_RECENT: '200' });

  it('the same member, agent and token: no sign-in provisioning, no agent, hook or catalog read', async () => {
    t.server = await startServerProcess(t.h.env, { nodeArgs: ['--require', COUNTER], timeoutMs: 90_000 });
    const done = (e: { event: string }) => e.event === 'done';
    await t.h.chatUntil(t.server, 'Pay PO-WARM amount 100', done);
    // Settled: 20 ticks (2 s) lets the first run's batched writes (decisions linger up to 1 s) go out.
    const settled = await afterTicks(t.server, (lastReport(t.server)?.ticks ?? 0) + 20);
    await t.h.chatUntil(t.server, 'Pay PO-SECOND amount 100', done);
    const statements = await statementsSince(t.server, settled, 20);
    expect(statements.length).toBeGreaterThan(0); // the run itself was counted
    expect(statements.filter((s) => CONFIGURATION.test(s))).toEqual([]);
    expect(t.oa.requests.filter((r) => r.path === '/purchases/PO-SECOND/pay')).toHaveLength(1);
  }, 120_000);
});

/** A claim of parked runs sent on its own (RunLeases.claimParked), not in the statement of the decision. */
const PARKED_CLAIM = 'UPDATE agent_runs r SET locked_by';
/** What a reminder/escalation sweep sends: claiming due steps, or asking when the next one is due. */
const ESCALATION_SWEEP = /^WITH esc AS \( UPDATE confirmation_requests|due_in_ms FROM \( SELECT min\(escalate_at\)/;

describe('an approval asked and decided here arms no sweep afterwards (server process, PostgreSQL)', () => {
  const t = payingInstance({ ...SHORT_INTERVALS, STATEMENT_COUNTER_RECENT: '400' });

  it('request without reminder or escalation, decision, resume: 30 ticks on, no recovery nor escalation sweep', async () => {
    t.server = await startServerProcess(t.h.env, { nodeArgs: ['--require', COUNTER], timeoutMs: 90_000 });
    const started = await afterTicks(t.server, (lastReport(t.server)?.ticks ?? 0) + 10);
    const { runId, confirmationId } = await parkedRun(
      t,
      await t.h.chatUntil(t.server, 'Pay PO-DECIDED amount 60000', approvalPending),
    );
    await approve(t, confirmationId);
    await completed(t, runId);
    // The decision's instance claimed the run at once (a park sees a decision in flight: nothing for a timer to catch),
    // and the request had no step to remind or escalate: nothing is due, here or on any instance that heard of it.
    const sinceStart = await statementsSince(t.server, started, 30);
    expect(sinceStart.filter((s) => RECOVERY_SWEEP.test(s) || ESCALATION_SWEEP.test(s))).toEqual([]);
    // The decision's statement claimed the parked run (one transaction): no claim statement after it.
    expect(sinceStart.filter((s) => s.startsWith(PARKED_CLAIM))).toEqual([]);
    expect(t.oa.requests.filter((r) => r.path === '/purchases/PO-DECIDED/pay')).toHaveLength(1);
  }, 120_000);
});
