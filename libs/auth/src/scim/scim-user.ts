import {
  attr,
  invalidSyntax,
  invalidValue,
  isObject,
  requiredString,
  scimBoolean,
  scimString,
  type PatchOperation,
} from './scim-patch.js';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:user';

/** What Warden keeps of a directory user: `userName` is the user's `sub` (the claim AUTH_USER_CLAIM names). */
export interface ScimUserState {
  userName: string;
  externalId: string | null;
  /** Shown as the user's name in Warden (displayName, else name.formatted, else given + family). */
  displayName: string | null;
  givenName?: string | null;
  familyName?: string | null;
  email: string | null;
  active: boolean;
}

/** A POST or PUT body (the whole resource): userName is required, the rest optional; `active` defaults to true. */
export function userFromBody(body: unknown): ScimUserState {
  if (!isObject(body)) throw invalidSyntax('the body must be a SCIM User object');
  const state: ScimUserState = {
    userName: requiredString(attr(body, 'userName'), 'userName'),
    externalId: null,
    displayName: null,
    email: null,
    active: true,
  };
  for (const [key, value] of Object.entries(body)) {
    if (key.toLowerCase() === 'username' || value === undefined) continue;
    setAttribute(state, key, value);
  }
  return state;
}

/**
 * Applies PATCH operations in order, as Okta (`{op: replace, value: {active: false}}`) and Entra ID (`path`) send them.
 */
export function patchUser(current: ScimUserState, ops: PatchOperation[]): ScimUserState {
  const next = { ...current };
  for (const op of ops) {
    if (op.path === undefined) {
      if (!isObject(op.value)) throw invalidValue(`${op.op} without a path needs an object value`);
      for (const [key, value] of Object.entries(op.value)) setAttribute(next, key, value);
    } else if (op.op === 'remove') {
      setAttribute(next, op.path, null);
    } else {
      setAttribute(next, op.path, op.value);
    }
  }
  return next;
}

/** Sets one attribute by name or path (`name.givenName`, `emails[type eq "work"].value`); unknown ones are ignored. */
function setAttribute(state: ScimUserState, path: string, value: unknown): void {
  const p = path.toLowerCase();
  if (p === 'schemas' || p === 'id' || p === 'meta' || p === 'groups' || p.startsWith(ENTERPRISE)) return;
  if (p === 'username') state.userName = requiredString(value, 'userName');
  else if (p === 'externalid') state.externalId = scimString(value, 'externalId', { nullable: true });
  else if (p === 'displayname') state.displayName = scimString(value, 'displayName', { nullable: true });
  else if (p === 'active') state.active = scimBoolean(value, 'active');
  else if (p === 'name') setName(state, value);
  else if (p === 'name.givenname') state.givenName = scimString(value, 'name.givenName', { nullable: true });
  else if (p === 'name.familyname') state.familyName = scimString(value, 'name.familyName', { nullable: true });
  else if (p === 'name.formatted') state.displayName ??= scimString(value, 'name.formatted', { nullable: true });
  else if (p === 'emails') state.email = primaryEmail(value);
  else if (/^emails(\[.*\])?\.value$/.test(p)) state.email = scimString(value, 'emails.value', { nullable: true });
}

function setName(state: ScimUserState, value: unknown): void {
  if (value === null) return void Object.assign(state, { givenName: null, familyName: null });
  if (!isObject(value)) throw invalidValue('name must be an object');
  for (const [key, v] of Object.entries(value)) if (v !== undefined) setAttribute(state, `name.${key}`, v);
}

function primaryEmail(value: unknown): string | null {
  if (value === null) return null;
  if (!Array.isArray(value) || value.some((e) => !isObject(e)))
    throw invalidValue('emails must be an array of objects');
  const emails = value as Array<Record<string, unknown>>;
  const chosen = emails.find((e) => attr(e, 'primary') === true || attr(e, 'primary') === 'True') ?? emails.at(0);
  return chosen ? scimString(attr(chosen, 'value'), 'emails.value') : null;
}

/** The name Warden shows: what the directory calls the user. */
export function shownName(s: ScimUserState): string | null {
  const parts = [s.givenName, s.familyName].filter((x): x is string => !!x);
  return s.displayName ?? (parts.length ? parts.join(' ') : null);
}

export interface StoredScimUser {
  id: string;
  state: ScimUserState;
  groups: Array<{ id: string; displayName: string }>;
  created: Date;
  lastModified: Date;
}

export function renderUser(u: StoredScimUser, base: string): Record<string, unknown> {
  const name = shownName(u.state);
  return {
    schemas: [USER_SCHEMA],
    id: u.id,
    ...(u.state.externalId ? { externalId: u.state.externalId } : {}),
    userName: u.state.userName,
    ...(name ? { displayName: name, name: { formatted: name } } : {}),
    ...(u.state.email ? { emails: [{ value: u.state.email, type: 'work', primary: true }] } : {}),
    active: u.state.active,
    groups: u.groups.map((g) => ({ value: g.id, display: g.displayName, $ref: `${base}/Groups/${g.id}` })),
    meta: {
      resourceType: 'User',
      created: u.created.toISOString(),
      lastModified: u.lastModified.toISOString(),
      location: `${base}/Users/${u.id}`,
    },
  };
}
