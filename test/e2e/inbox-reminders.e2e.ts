import { until } from '../support/eventually.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { person, runGate, settings, type Person } from './approver-support.js';
import { parseSse, type SseEvent } from './runtime-helpers.js';

/**
 * Issue #32 break 9: reminders and escalations of requests on the built-in inbox reach the people who must act, not
 * only admins. The approvers' inbox streams (another instance than the one that sweeps: only NOTIFY can tell it) show
 * the request as reminded, then escalated, and the escalation's widened approvers get it; the requester finds the
 * reminder among their own notifications.
 */
function openInbox(t: TestApp, who: Person): { events: SseEvent[]; close(): void } {
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
  return { events, close: () => ctl.abort() };
}

describe('inbox reminders and escalations reach approvers and the requester (SSE, NOTIFY across instances)', () => {
  let a: TestApp;
  let b: TestApp;
  let mia: Person;
  let fin: Person;
  let lee: Person;
  const closers: Array<() => void> = [];

  // Two app instances boot here: on a loaded 2-core CI machine that has taken over 30 s (clean-clone CI).
  beforeAll(async () => {
    a = await startTestApp();
    b = await startTestApp({}, { databaseUrl: a.databaseUrl });
    mia = await person(a, 'mia', 'acme-remind', []);
    lee = await person(a, 'lee', 'acme-remind', ['buyers']);
    fin = await person(a, 'fin', 'acme-remind', ['finance']);
  }, 60_000);
  afterAll(async () => {
    for (const close of closers) close();
    await b?.close();
    await a?.close();
  });

  it('the approver sees "reminded" then "escalated" live, the escalation reaches finance, the requester gets the reminder', async () => {
    const approver = openInbox(b, lee);
    const escalatedTo = openInbox(b, fin);
    closers.push(
      () => approver.close(),
      () => escalatedTo.close(),
    );
    await until(
      'both snapshots',
      () =>
        approver.events.some((e) => e.event === 'snapshot') && escalatedTo.events.some((e) => e.event === 'snapshot'),
    );
    const gate = runGate(
      a,
      mia,
      settings(mia, {
        approverScope: 'org_members',
        approvers: ['role:buyers'],
        remindAfterS: 1,
        escalateAfterS: 2,
        escalateTo: { approvers: ['role:finance'] },
      }),
    );
    const id = await gate.id;
    const seen = (inbox: { events: SseEvent[] }, field: string) => () =>
      inbox.events.find((e) => e.event === 'confirmation' && e.data.id === id && e.data[field]);
    await until('the approver sees the reminder', seen(approver, 'reminded_at'), 10_000);
    await until('the approver sees the escalation', seen(approver, 'escalated_at'), 10_000);
    await until('the escalation reaches finance', seen(escalatedTo, 'escalated_at'), 10_000);

    const notes = await a.request('GET', '/api/notifications', { token: mia.token });
    expect(notes.status).toBe(200);
    expect(notes.body.map((n: { text: string }) => n.text).join('\n')).toContain(
      `Reminder: approval still needed for oa__purchase_pay`,
    );
  });
});
