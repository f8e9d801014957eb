import { startTestApp, type TestApp } from '../support/test-app.js';
import { entraUser, GROUP, oktaUser, PATCH_OP, scim, scimToken } from './scim-support.js';

const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** SCIM 2.0 as Okta and Entra ID speak it: their documented requests as test vectors; errors as SCIM bodies, never 500. */
describe('SCIM 2.0 provisioning (PostgreSQL)', () => {
  let t: TestApp;
  let admin: string;
  let secret: string;
  let call: ReturnType<typeof scim>;

  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.token('root', 'acme', ['admin']);
    secret = await scimToken(t, admin);
    call = scim(t, secret);
  }, 60_000);
  afterAll(() => t?.close());

  it('creates a token shown once and stored hashed; a revoked or foreign token is a SCIM 401', async () => {
    const listed = await t.request('GET', '/api/org/scim-tokens', { token: admin });
    expect(listed.body).toEqual([expect.objectContaining({ label: 'Okta', revoked_at: null })]);
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    const stored = await t.app.get((await import('typeorm')).DataSource).query(`SELECT token_hash FROM scim_tokens`);
    expect(JSON.stringify(stored)).not.toContain(secret);
    const other = await scimToken(t, admin, 'Entra');
    const id = (await t.request('GET', '/api/org/scim-tokens', { token: admin })).body[1].id;
    expect((await scim(t, other)('GET', '/Users')).status).toBe(200);
    expect((await t.request('DELETE', `/api/org/scim-tokens/${id}`, { token: admin })).status).toBe(200);
    const refused = await scim(t, other)('GET', '/Users');
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ schemas: [ERROR], status: '401' });
    expect((await scim(t, 'nope')('GET', '/Users')).status).toBe(401);
    const member = await t.token('bob', 'acme', []);
    expect((await t.request('POST', '/api/org/scim-tokens', { token: member, body: {} })).status).toBe(403);
  });

  it('Okta: filter, create, PUT, PATCH deactivate, groups with add / remove / rename', async () => {
    const filter = encodeURIComponent('userName eq "test.user@okta.local"');
    const none = await call('GET', `/Users?filter=${filter}&startIndex=1&count=100`);
    expect(none.body).toMatchObject({ totalResults: 0, Resources: [] });
    expect(none.headers.get('content-type')).toMatch(/application\/scim\+json/);
    const created = await call('POST', '/Users', oktaUser('test.user@okta.local', '00ujl29u0le5T6Aj10h7'));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      userName: 'test.user@okta.local',
      externalId: '00ujl29u0le5T6Aj10h7',
      active: true,
    });
    const id = created.body.id;
    expect((await call('GET', `/Users?filter=${filter}`)).body).toMatchObject({ totalResults: 1, Resources: [{ id }] });
    expect((await call('POST', '/Users', oktaUser('test.user@okta.local', 'x'))).body).toMatchObject({
      status: '409',
      scimType: 'uniqueness',
    });
    const put = await call('PUT', `/Users/${id}`, {
      ...oktaUser('test.user@okta.local', '00ujl29u0le5T6Aj10h7'),
      displayName: 'Tess User',
    });
    expect(put.body.displayName).toBe('Tess User');

    const group = await call('POST', '/Groups', { schemas: [GROUP], displayName: 'Test SCIMv2', members: [] });
    expect(group.status).toBe(201);
    const gid = group.body.id;
    const patch = (ops: unknown[]) => call('PATCH', `/Groups/${gid}`, { schemas: [PATCH_OP], Operations: ops });
    await patch([{ op: 'add', path: 'members', value: [{ value: id, display: 'test.user@okta.local' }] }]);
    await patch([{ op: 'replace', value: { id: gid, displayName: 'finance' } }]);
    expect((await call('GET', `/Users/${id}`)).body.groups).toEqual([
      expect.objectContaining({ value: gid, display: 'finance' }),
    ]);
    const me = await t.request('GET', '/api/me', { token: await t.token('test.user@okta.local', 'acme', ['admin']) });
    expect(me.body.roles).toEqual(['finance']);
    await patch([{ op: 'remove', path: `members[value eq "${id}"]` }]);
    expect((await call('GET', `/Groups/${gid}`)).body.members).toEqual([]);

    const off = await call('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    expect(off.body.active).toBe(false);
  });

  it('Entra ID: create, PATCH with paths and "False", groups filtered without members, Add / Remove members', async () => {
    const created = await call(
      'POST',
      '/Users',
      entraUser('Test_User_ab6490ee', '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef'),
    );
    expect(created.status).toBe(201);
    const id = created.body.id;
    const updated = await call('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@microsoft.com' },
        { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
      ],
    });
    expect(updated.body.emails).toEqual([expect.objectContaining({ value: 'updatedEmail@microsoft.com' })]);
    const group = await call('POST', '/Groups', {
      schemas: [GROUP, 'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/Group'],
      externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
      displayName: 'approvers',
      meta: { resourceType: 'Group' },
    });
    const gid = group.body.id;
    const found = await call(
      'GET',
      `/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "approvers"')}`,
    );
    expect(found.body.Resources).toEqual([expect.not.objectContaining({ members: expect.anything() })]);
    const ops = (op: string) => ({
      schemas: [PATCH_OP],
      Operations: [{ name: `${op}Member`, op, path: 'members', value: [{ displayName: 'x', value: id }] }],
    });
    expect((await call('PATCH', `/Groups/${gid}`, ops('Add'))).body.members).toEqual([
      expect.objectContaining({ value: id }),
    ]);
    expect((await call('PATCH', `/Groups/${gid}`, ops('Remove'))).body.members).toEqual([]);
    const off = await call('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    });
    expect(off.body.active).toBe(false);
    expect((await call('DELETE', `/Groups/${gid}`)).status).toBe(204);
  });

  it.each([
    [
      'a filter with another operator',
      'GET',
      `/Users?filter=${encodeURIComponent('userName sw "a"')}`,
      undefined,
      '400',
      'invalidFilter',
    ],
    [
      'a filter on an unknown attribute',
      'GET',
      `/Users?filter=${encodeURIComponent('title eq "x"')}`,
      undefined,
      '400',
      'invalidFilter',
    ],
    ['malformed JSON', 'POST', '/Users', '{"userName": ', '400', 'invalidSyntax'],
    ['a user without userName', 'POST', '/Users', { schemas: [] }, '400', 'invalidValue'],
    [
      'PATCH without Operations',
      'PATCH',
      '/Users/00000000-0000-0000-0000-000000000000',
      { schemas: [PATCH_OP] },
      '400',
      'invalidSyntax',
    ],
    [
      'PATCH with an unknown op',
      'PATCH',
      '/Groups/x',
      { schemas: [PATCH_OP], Operations: [{ op: 'move', path: 'members' }] },
      '400',
      'invalidSyntax',
    ],
    ['active that is no boolean', 'POST', '/Users', { userName: 'z', active: 'maybe' }, '400', 'invalidValue'],
    [
      'an unknown member',
      'POST',
      '/Groups',
      { displayName: 'g', members: [{ value: 'nobody' }] },
      '400',
      'invalidValue',
    ],
    ['an unknown user', 'GET', '/Users/00000000-0000-0000-0000-000000000000', undefined, '404', undefined],
    ['a body that is an array', 'PUT', '/Groups/x', [1, 2], '400', 'invalidSyntax'],
  ])('%s is a SCIM error, not a 500', async (_what, method, path, body, status, scimType) => {
    const res = await call(method, path, body);
    expect(res.body).toMatchObject({ schemas: [ERROR], status, ...(scimType ? { scimType } : {}) });
    expect(res.status).toBe(Number(status));
  });

  it('serves discovery documents', async () => {
    expect((await call('GET', '/ServiceProviderConfig')).body).toMatchObject({
      patch: { supported: true },
      filter: { supported: true },
    });
    expect((await call('GET', '/ResourceTypes')).body.Resources.map((r: { id: string }) => r.id)).toEqual([
      'User',
      'Group',
    ]);
    expect((await call('GET', '/Schemas')).body.totalResults).toBe(2);
  });
});
