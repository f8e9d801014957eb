import { startFakeFeishu, type FakeFeishu } from '../fakes/fake-feishu.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import {
  adminLink,
  click,
  decide,
  FEISHU_APP,
  feishuChannel,
  person,
  runGate,
  settings,
  statusOf,
  type Person,
} from './approver-support.js';
import { GROUP, oktaUser, PATCH_OP, scim, scimToken } from './scim-support.js';

/**
 * Issue #33 acceptance 2: an approver deprovisioned in the directory (SCIM) while a request waits is refused at once
 * — their API decision, their chat click, any API call — with a token that has not expired; another approver can
 * still decide, and the requests of a deprovisioned requester stay decidable by others.
 */
describe('SCIM deprovisioning takes effect at once (PostgreSQL, fake Feishu)', () => {
  let t: TestApp;
  let feishu: FakeFeishu;
  let admin: Person;
  let alice: Person; // requester (signed in from her token, not provisioned)
  const people: Record<string, Person> = {};
  const ids: Record<string, string> = {};
  let channel: string;
  let group: string;
  let call: ReturnType<typeof scim>;

  beforeAll(async () => {
    feishu = await startFakeFeishu(FEISHU_APP);
    t = await startTestApp();
    admin = await person(t, 'root', 'acme', ['admin']);
    alice = await person(t, 'alice', 'acme');
    call = scim(t, await scimToken(t, admin.token));
    for (const sub of ['bob', 'carol', 'dave']) {
      const res = await call('POST', '/Users', oktaUser(sub, `00u${sub}`));
      expect(res.status).toBe(201);
      ids[sub] = res.body.id;
    }
    const created = await call('POST', '/Groups', {
      schemas: [GROUP],
      displayName: 'approvers',
      members: [{ value: ids.bob }, { value: ids.carol }],
    });
    expect(created.status).toBe(201);
    group = created.body.id;
    // Their tokens claim no roles: with SCIM the directory's groups are their roles.
    for (const sub of ['bob', 'carol', 'dave']) people[sub] = await person(t, sub, 'acme', []);
    channel = await feishuChannel(t, admin, feishu);
    for (const sub of ['bob', 'carol']) await adminLink(t, admin, sub, `ou_${sub}`);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await feishu?.close();
  });

  const approvers = () => settings(admin, { channelId: channel, approvers: ['role:approvers'] });

  it('takes the roles of approver policies from the directory, not from the token', async () => {
    const me = await t.request('GET', '/api/me', { token: await t.token('bob', 'acme', ['admin']) });
    expect(me.body.roles).toEqual(['approvers']);
  });

  it('refuses a deactivated approver at once (API decision, chat click, any call); another approver decides', async () => {
    const waiting = runGate(t, alice, approvers());
    const id = await waiting.id;
    const bob = people.bob;
    expect((await t.request('GET', '/api/me', { token: bob.token })).status).toBe(200);

    const off = await call('PATCH', `/Users/${ids.bob}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    expect(off.status).toBe(200);
    expect(off.body.active).toBe(false);

    const me = await t.request('GET', '/api/me', { token: bob.token });
    expect(me.status).toBe(401);
    expect(me.body.message).toMatch(/deactivated/);
    expect((await decide(t, bob, id)).status).toBe(401);
    const clicked = await click(t, channel, id, 'ou_bob');
    expect(clicked).toMatchObject({ ok: false, message: expect.stringMatching(/deactivated/) });
    expect((await statusOf(t, admin, id)).status).toBe('pending');

    const decided = await decide(t, people.carol, id);
    expect(decided.status).toBe(200);
    expect(decided.body.status).toBe('approved');
    expect((await waiting.result).allow).toBe(true);
  });

  it('refuses an approver removed from the approver group at once; a member added meanwhile decides', async () => {
    const waiting = runGate(t, alice, approvers());
    const id = await waiting.id;
    const removed = await call('PATCH', `/Groups/${group}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'remove', path: `members[value eq "${ids.carol}"]` }],
    });
    expect(removed.status).toBe(200);
    const refused = await decide(t, people.carol, id);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/role "approvers"/);
    expect(await click(t, channel, id, 'ou_carol')).toMatchObject({ ok: false });
    // Still signed in (active), only no longer an approver.
    expect((await t.request('GET', '/api/me', { token: people.carol.token })).body.roles).toEqual([]);

    const added = await call('PATCH', `/Groups/${group}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'members', value: [{ value: ids.dave, display: 'dave' }] }],
    });
    expect(added.status).toBe(200);
    expect((await decide(t, people.dave, id)).body.status).toBe('approved');
    expect((await waiting.result).allow).toBe(true);
  });

  it("keeps a deprovisioned requester's pending request decidable by the others", async () => {
    const waiting = runGate(t, people.dave, approvers());
    const id = await waiting.id;
    expect((await call('DELETE', `/Users/${ids.dave}`)).status).toBe(204);
    expect((await t.request('GET', '/api/me', { token: people.dave.token })).status).toBe(401);
    const re = await call('PATCH', `/Users/${ids.carol}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'active', value: 'True' }],
    });
    expect(re.status).toBe(200);
    await call('PATCH', `/Groups/${group}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'members', value: [{ value: ids.carol }] }],
    });
    expect((await decide(t, people.carol, id)).body.status).toBe('approved');
    expect((await waiting.result).allow).toBe(true);
  });
});
