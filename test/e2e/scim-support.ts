import type { TestApp } from '../support/test-app.js';

export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';

/** An admin's SCIM token for the org (POST /api/org/scim-tokens: the secret is shown once). */
export async function scimToken(t: TestApp, adminToken: string, label = 'Okta'): Promise<string> {
  const res = await t.request('POST', '/api/org/scim-tokens', { token: adminToken, body: { label } });
  expect(res.status).toBe(201);
  return res.body.token as string;
}

/** One SCIM request as an identity provider sends it (application/scim+json, bearer token). */
export function scim(t: TestApp, token: string) {
  return (method: string, path: string, body?: unknown) =>
    t.request(method, `/scim/v2${path}`, {
      body,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }),
      },
    });
}

/** Okta's documented POST /Users body (Okta SCIM 2.0 reference), for `userName`. */
export const oktaUser = (userName: string, externalId: string) => ({
  schemas: [USER],
  userName,
  name: { givenName: userName.split('@')[0], familyName: 'Tester' },
  emails: [{ primary: true, value: userName, type: 'work' }],
  displayName: `${userName.split('@')[0]} Tester`,
  locale: 'en-US',
  externalId,
  groups: [],
  password: '1mz050nq',
  active: true,
});

/** Entra ID's documented POST /Users body (Microsoft's SCIM endpoint tutorial), for `userName`. */
export const entraUser = (userName: string, externalId: string) => ({
  schemas: [USER, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
  externalId,
  userName,
  active: true,
  emails: [{ primary: true, type: 'work', value: `${userName}@testuser.com` }],
  meta: { resourceType: 'User' },
  name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
  roles: [],
});
