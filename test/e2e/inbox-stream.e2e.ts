import { ConfirmationInboxStream } from '@warden/confirmations';
import { until } from '../support/eventually.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { decide, person, runGate, settings, type Person } from './approver-support.js';
import { parseSse, type SseEvent } from './runtime-helpers.js';

/**
 * The approvals inbox, live: GET /api/confirmations/stream sends "pending for me" (the approver policy of
 * approver-check.ts) and then each change, woken by the confirmations' NOTIFY on the instance's one LISTEN connection.
 * Requests are made on instance A, inboxes are open on instance B: only NOTIFY can tell B.
 */
interface Inbox {
  events: SseEvent[];
  close(): void;
  rows(): Map<string, any>;
}

function openInbox(t: TestApp, who: Person): Inbox {
  const events: SseEvent[] = [];
  const ctl = new AbortController();
  void (async () => {
    const res = await fetch(`${t.url}/api/confirmations/stream`, {
      headers: { authorization: `Bearer ${who.token}` },
      signal: ctl.signal,
    });
    let buffer = '';
    for await (const chunk of res.body!.pipeThrough(new TextDecoderStream()) as unknown as AsyncIterable<string>) {
      buffer += chunk;
      const cut = buffer.lastIndexOf('\n\n');
      if (cut < 0) continue;
      events.push(...parseSse(buffer.slice(0, cut + 2)).events);
      buffer = buffer.slice(cut + 2);
    }
  })().catch(() => undefined);
  return {
    events,
    close: () => ctl.abort(),
    // What the console shows: the snapshot, then each row upserted while pending and dropped once decided.
    rows: () => {
      const rows = new Map<string, any>();
      for (const e of events) {
        if (e.event === 'snapshot') {
          rows.clear();
          for (const r of e.data.rows) rows.set(r.id, r);
        }
        if (e.event === 'confirmation') {
          if (e.data.status === 'pending') rows.set(e.data.id, e.data);
          else rows.delete(e.data.id);
        }
        if (e.event === 'withdrawn') rows.delete(e.data.id);
      }
      return rows;
    },
  };
}

describe('approvals inbox stream (SSE, NOTIFY across instances)', () => {
  let a: TestApp;
  let b: TestApp;
  let ada: Person;
  let mia: Person;
  let fin: Person;
  let oz: Person;
  const inboxes: Inbox[] = [];
  const open = (who: Person) => {
    const i = openInbox(b, who);
    inboxes.push(i);
    return i;
  };
  const snapshotOf = (i: Inbox) => until('the snapshot', () => i.events.find((e) => e.event === 'snapshot'));

  // Two app instances boot here: on a loaded 2-core CI machine that has taken over 30 s (clean-clone CI).
  beforeAll(async () => {
    a = await startTestApp();
    b = await startTestApp({}, { databaseUrl: a.databaseUrl });
    ada = await person(a, 'ada', 'acme', ['admin']);
    mia = await person(a, 'mia', 'acme', []);
    fin = await person(a, 'fin', 'acme', ['finance']);
    oz = await person(a, 'oz', 'globex', ['admin']);
  }, 60_000);
  afterAll(async () => {
    for (const i of inboxes) i.close();
    await b?.close();
    await a?.close();
  });

  it('each inbox gets only what its user may approve, live from another instance, at one read per change whatever the number of inboxes', async () => {
    const adaInbox = open(ada);
    const adaSecondTab = open(ada);
    const miaInbox = open(mia);
    const finInbox = open(fin);
    const ozInbox = open(oz);
    for (const i of inboxes) expect((await snapshotOf(i)).data.rows).toEqual([]);
    const stream = b.app.get(ConfirmationInboxStream);
    const readsBefore = stream.fetches;

    const forAdmins = runGate(a, mia, settings(ada, { approvers: ['org_admins'] }), { id: 'PO-1', amount: 60000 });
    const adminsId = await forAdmins.id;
    const forFinance = runGate(a, mia, settings(ada, { approvers: ['role:finance'], forbidSelfApproval: true }), {
      id: 'PO-2',
      amount: 70000,
    });
    const financeId = await forFinance.id;

    await until(
      "the admins' request in both of ada's tabs",
      () => adaInbox.rows().has(adminsId) && adaSecondTab.rows().has(adminsId),
    );
    await until("the finance request in fin's inbox", () => finInbox.rows().has(financeId));
    expect(adaInbox.rows().get(adminsId)).toMatchObject({
      tool: 'oa__purchase_pay',
      args: { id: 'PO-1', amount: 60000 },
      status: 'pending',
    });
    expect([...adaInbox.rows().keys()]).toEqual([adminsId]);
    expect([...finInbox.rows().keys()]).toEqual([financeId]);

    // Decided on A: gone from ada's inbox on B, with the decision.
    expect((await decide(a, ada, adminsId)).status).toBe(200);
    await until("the decision in ada's inbox", () =>
      adaInbox.events.find((e) => e.event === 'confirmation' && e.data.id === adminsId && e.data.status === 'approved'),
    );
    await until("the decision in ada's second tab", () => !adaSecondTab.rows().has(adminsId));
    expect((await forAdmins.result).allow).toBe(true);

    // Fan-out happens in the same pass for every inbox: mia (the requester, no approver) and another org saw nothing.
    expect(miaInbox.events.filter((e) => e.event !== 'snapshot')).toEqual([]);
    expect(ozInbox.events.filter((e) => e.event !== 'snapshot')).toEqual([]);
    // Four notifications (two requests; the decision's vote and its settlement), five open inboxes: at most one read
    // per notification, not one per inbox (that would be 20).
    expect(stream.fetches - readsBefore).toBeGreaterThan(0);
    expect(stream.fetches - readsBefore).toBeLessThanOrEqual(4);

    // A newly opened inbox starts from the current state.
    const late = open(fin);
    expect((await snapshotOf(late)).data.rows.map((r: any) => r.id)).toEqual([financeId]);
    expect((await snapshotOf(open(mia))).data.rows).toEqual([]);
    expect((await decide(a, fin, financeId, 'reject')).status).toBe(200);
    await until(
      "the rejection in both of fin's inboxes",
      () => !finInbox.rows().has(financeId) && !late.rows().has(financeId),
    );
    await forFinance.result;
  });

  it('a request needing two approvals shows its count live after the first, and leaves once the second is in', async () => {
    const max = await person(a, 'max', 'acme', ['admin']);
    const maxInbox = open(max);
    await snapshotOf(maxInbox);
    const twoNeeded = runGate(
      a,
      mia,
      settings(ada, { approvers: ['org_admins'], tiers: [{ when: 'args.amount > 500000', approvals: 2 }] }),
      { id: 'PO-9', amount: 900000 },
    );
    const id = await twoNeeded.id;
    await until("the request in max's inbox", () => maxInbox.rows().get(id));
    expect(maxInbox.rows().get(id)).toMatchObject({ approvals_required: 2, approvals_given: 0 });
    expect((await decide(a, ada, id)).status).toBe(200);
    await until("the first approval counted in max's inbox", () => maxInbox.rows().get(id)?.approvals_given === 1);
    expect(maxInbox.rows().get(id).approvals_progress).toBe('1 of 2 approvals');
    expect((await decide(a, max, id)).status).toBe(200);
    await until("the request gone from max's inbox", () => !maxInbox.rows().has(id));
    expect((await twoNeeded.result).allow).toBe(true);
  });

  it('a request reassigned on another instance leaves the inbox of the approver who handed it on; the new approver decides it', async () => {
    const kai = await person(a, 'kai', 'acme', ['admin']);
    const adaInbox = open(ada);
    const kaiInbox = open(kai);
    await Promise.all([snapshotOf(adaInbox), snapshotOf(kaiInbox)]);
    const gate = runGate(a, mia, settings(ada, { approvers: ['org_admins'] }), { id: 'PO-11', amount: 80000 });
    const id = await gate.id;
    await until('the request in both inboxes', () => adaInbox.rows().has(id) && kaiInbox.rows().has(id));

    const moved = await a.request('POST', `/api/confirmations/${id}/reassign`, {
      token: ada.token,
      body: { to: 'kai' },
    });
    expect(moved.status).toBe(200);
    await until("the request gone from ada's inbox", () => !adaInbox.rows().has(id));
    // Only the id: she no longer decides it, and learns nothing more about it from the stream.
    expect(adaInbox.events.filter((e) => e.event === 'withdrawn')).toEqual([expect.objectContaining({ data: { id } })]);
    await until("kai's inbox shows him as its only approver", () =>
      kaiInbox.rows().get(id)?.approvers?.includes('users:kai'),
    );
    expect((await decide(a, kai, id)).status).toBe(200);
    await until("the request gone from kai's inbox", () => !kaiInbox.rows().has(id));
    expect((await gate.result).allow).toBe(true);
  });

  it('a closed inbox is forgotten', async () => {
    const stream = b.app.get(ConfirmationInboxStream);
    for (const i of inboxes) i.close();
    await until('every inbox stream closed', () => stream.openStreams === 0);
  });
});
