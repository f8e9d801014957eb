import { startHttpFake, type HttpFake } from '../fakes/http-fake.js';
import { until } from '../support/eventually.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const SINK_TOKEN = 'sink-token-0123456789abcdef';

/** AUDIT_SINK_URL: audit events are forwarded as they are written, at least once, with retries and a dead-letter count. */
describe('audit sink webhook (PostgreSQL)', () => {
  let t: TestApp;
  let sink: HttpFake;
  let admin: string;
  let failuresLeft = 2;
  /** Events of the requests the receiver accepted (2xx). */
  const accepted: Array<Record<string, any>> = [];

  const received = () => accepted;
  const deadLetters = async () => {
    const text = await (await fetch(`${t.url}/metrics`)).text();
    return Number(/^warden_audit_sink_dead_letters_total (\d+)/m.exec(text)?.[1] ?? 'NaN');
  };
  const createAgent = async (name: string) => {
    const res = await t.request('POST', '/api/agents', {
      token: admin,
      body: { name, model_config_json: { model: { provider: 'scripted', script: [{ content: 'hi' }] } } },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };

  beforeAll(async () => {
    // The receiver refuses the first attempts (503), as a SIEM restarting would.
    sink = await startHttpFake((req, res) => {
      if (failuresLeft > 0) {
        failuresLeft--;
        res.writeHead(503).end();
        return undefined;
      }
      accepted.push(...req.body.events);
      return { ok: true };
    });
    t = await startTestApp({
      AUDIT_SINK_URL: `${sink.url}/audit`,
      AUDIT_SINK_TOKEN: SINK_TOKEN,
      AUDIT_SINK_MAX_ATTEMPTS: '3',
      AUDIT_SINK_RETRY_MS: '20',
      AUDIT_SINK_POLL_MS: '100',
    });
    admin = await t.token('alice', 'acme', ['admin']);
  });
  afterAll(async () => {
    await t?.close();
    await sink?.close();
  });

  it('delivers each event after the receiver refused the first attempts, in chain order, with the token', async () => {
    const id = await createAgent('first');
    const event = await until('the event forwarded', () => received().find((e) => e.entity_id === id));
    expect(event).toMatchObject({ kind: 'config', action: 'agent.created', seq: '1' });
    expect(event.hash).toMatch(/^[0-9a-f]{64}$/);
    const attempts = sink.requests.filter(
      (r) => r.headers['idempotency-key'] === sink.requests.at(-1)!.headers['idempotency-key'],
    );
    expect(attempts.map((r) => r.headers.authorization)).toEqual(Array(3).fill(`Bearer ${SINK_TOKEN}`));
    expect(await deadLetters()).toBe(0);

    await createAgent('second');
    await until('the second event forwarded', () => received().find((e) => e.seq === '2'));
    expect(received().map((e) => e.seq)).toEqual(['1', '2']);
  });

  it('a receiver refusing every attempt dead-letters the batch (counted in /metrics) and later events still flow', async () => {
    failuresLeft = 3;
    const lost = await createAgent('lost');
    await until('the batch dead-lettered', async () => (await deadLetters()) === 1);
    expect(received().some((e) => e.entity_id === lost)).toBe(false);
    const later = await createAgent('later');
    await until('the next event forwarded', () => received().find((e) => e.entity_id === later));
    // The dead-lettered event is still in the trail, and the chain verifies.
    expect((await t.request('GET', '/api/audit/verify', { token: admin })).body).toMatchObject({
      valid: true,
      rows: 4,
    });
  });
});
