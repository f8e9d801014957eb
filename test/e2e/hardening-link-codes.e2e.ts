import pg from 'pg';
import { startFakeFeishu, type FakeFeishu } from '../fakes/fake-feishu.js';
import { until } from '../support/eventually.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { FEISHU_APP, feishuChannel, person, type Person } from './approver-support.js';

const GUESSES = 100;

/**
 * Issue #29 break 8: the 5-guess limit of an identity-link code was read and raised in separate statements, so a
 * burst of concurrent guesses got far more than 5 tries (once the right code linked after 99 wrong ones).
 */
describe('identity-link codes under a burst of guesses (PostgreSQL, fake Feishu)', () => {
  let t: TestApp;
  let feishu: FakeFeishu;
  let admin: Person;
  let mallory: Person;
  let sql: pg.Client;

  beforeAll(async () => {
    feishu = await startFakeFeishu(FEISHU_APP);
    t = await startTestApp();
    admin = await person(t, 'carol', 'acme', ['admin']);
    mallory = await person(t, 'mallory', 'acme');
    sql = new pg.Client({ connectionString: t.databaseUrl });
    await sql.connect();
  }, 60_000);
  afterAll(async () => {
    await sql?.end();
    await t?.close();
    await feishu?.close();
  });

  it(`${GUESSES} concurrent wrong guesses are counted one by one: 5 are tried, the rest refused, and the code is void`, async () => {
    const channelId = await feishuChannel(t, admin, feishu);
    const start = await t.request('POST', '/api/me/identities/link', {
      token: mallory.token,
      body: { platform: 'feishu', external_id: 'ou_victim', channel_id: channelId },
    });
    expect(start.status).toBe(202);
    const dm = await until('code sent', () => feishu.sent.find((m) => m.chatId === 'ou_victim'));
    const code = /Code: (\d{6})/.exec(dm.content.text)![1];
    const wrong = (i: number) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0');

    const answers = await Promise.all(
      Array.from({ length: GUESSES }, (_, i) =>
        t.request('POST', '/api/me/identities/verify', {
          token: mallory.token,
          body: { link_id: start.body.link_id, code: wrong(i) },
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(GUESSES).fill(400));
    const tried = answers.filter((a) => a.body.message.startsWith('wrong code')).length;
    const refused = answers.filter((a) => /too many wrong codes/.test(a.body.message)).length;
    expect({ tried, refused }).toEqual({ tried: 5, refused: GUESSES - 5 });
    const { rows } = await sql.query(`SELECT attempts FROM identity_link_codes WHERE id = $1`, [start.body.link_id]);
    expect(rows[0].attempts).toBe(5);

    // The burst is over (every answer is in): the right code no longer links anything.
    const right = await t.request('POST', '/api/me/identities/verify', {
      token: mallory.token,
      body: { link_id: start.body.link_id, code },
    });
    expect(right.status).toBe(400);
    expect(right.body.message).toMatch(/too many wrong codes/);
    expect((await t.request('GET', '/api/me', { token: mallory.token })).body.identities.feishu_open_id).toBeNull();
  });

  it('a right code among concurrent wrong ones links at most once, and only while fewer than 5 wrong ones were counted', async () => {
    const channelId = await feishuChannel(t, admin, feishu);
    const start = await t.request('POST', '/api/me/identities/link', {
      token: mallory.token,
      body: { platform: 'feishu', external_id: 'ou_mallory', channel_id: channelId },
    });
    expect(start.status).toBe(202);
    const dm = await until('code sent', () => feishu.sent.find((m) => m.chatId === 'ou_mallory'));
    const code = /Code: (\d{6})/.exec(dm.content.text)![1];
    const guesses = Array.from({ length: 20 }, (_, i) =>
      i === 10 ? code : String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0'),
    );
    const answers = await Promise.all(
      guesses.map((g) =>
        t.request('POST', '/api/me/identities/verify', {
          token: mallory.token,
          body: { link_id: start.body.link_id, code: g },
        }),
      ),
    );
    const linked = answers.filter((a) => a.status === 200).length;
    const { rows } = await sql.query(`SELECT attempts, consumed_at FROM identity_link_codes WHERE id = $1`, [
      start.body.link_id,
    ]);
    expect(rows[0].attempts).toBeLessThanOrEqual(5);
    expect(linked).toBe(rows[0].attempts < 5 ? 1 : 0);
    expect(answers.filter((a) => (a.body?.message ?? '').startsWith('wrong code')).length).toBe(rows[0].attempts);
  });
});
