import { parseScimFilter } from './scim-filter.js';
import {
  attr,
  invalidPath,
  invalidSyntax,
  invalidValue,
  isObject,
  requiredString,
  scimString,
  type PatchOperation,
} from './scim-patch.js';

export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';

/** A directory group: its display name is the Warden role of its members; members are SCIM user ids. */
export interface ScimGroupState {
  displayName: string;
  externalId: string | null;
  members: string[];
}

export function groupFromBody(body: unknown): ScimGroupState {
  if (!isObject(body)) throw invalidSyntax('the body must be a SCIM Group object');
  const members = attr(body, 'members');
  return {
    displayName: requiredString(attr(body, 'displayName'), 'displayName', 200),
    externalId:
      attr(body, 'externalId') === undefined
        ? null
        : scimString(attr(body, 'externalId'), 'externalId', { nullable: true }),
    members: members === undefined || members === null ? [] : memberIds(members),
  };
}

/**
 * Applies PATCH operations in order, in the shapes Okta (`remove` with `members[value eq "id"]`, `replace` with an
 * object value) and Entra ID (`Add` / `Remove` with `path: members` and a value list) send.
 */
export function patchGroup(current: ScimGroupState, ops: PatchOperation[]): ScimGroupState {
  const next = { ...current, members: [...current.members] };
  for (const op of ops) {
    const path = op.path?.trim();
    if (path === undefined) {
      if (!isObject(op.value)) throw invalidValue(`${op.op} without a path needs an object value`);
      for (const [key, value] of Object.entries(op.value)) setAttribute(next, op.op, key, value);
      continue;
    }
    const filtered = /^members\s*\[(.*)\]$/i.exec(path);
    if (filtered) {
      if (op.op !== 'remove') throw invalidPath(`${op.op} cannot target ${path}`);
      const eq = parseScimFilter(filtered[1], ['value']);
      next.members = next.members.filter((m) => m !== eq?.value);
      continue;
    }
    setAttribute(next, op.op, path, op.op === 'remove' ? undefined : op.value, op.value);
  }
  return next;
}

function setAttribute(
  state: ScimGroupState,
  op: PatchOperation['op'],
  path: string,
  value: unknown,
  removing?: unknown,
): void {
  const p = path.toLowerCase();
  if (p === 'schemas' || p === 'id' || p === 'meta') return;
  if (p === 'displayname') {
    if (op === 'remove') throw invalidValue('displayName is required and cannot be removed');
    state.displayName = requiredString(value, 'displayName', 200);
  } else if (p === 'externalid') {
    state.externalId = op === 'remove' ? null : scimString(value, 'externalId', { nullable: true });
  } else if (p === 'members') {
    if (op === 'add') state.members = [...new Set([...state.members, ...memberIds(value)])];
    else if (op === 'replace') state.members = [...new Set(memberIds(value))];
    else if (removing === undefined) state.members = [];
    else {
      const gone = new Set(memberIds(removing));
      state.members = state.members.filter((m) => !gone.has(m));
    }
  } else {
    throw invalidPath(`unknown Group attribute "${path}"`);
  }
}

function memberIds(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  if (list.length > 10_000) throw invalidValue('at most 10000 members per operation');
  return list.map((m, i) => {
    const id = isObject(m) ? attr(m, 'value') : undefined;
    if (typeof id !== 'string' || id === '')
      throw invalidValue(`members[${i}] must be an object with a string value (a user id)`);
    return id;
  });
}

export function renderGroup(
  g: { id: string; state: ScimGroupState; memberNames: Map<string, string>; created: Date; lastModified: Date },
  base: string,
  withMembers = true,
): Record<string, unknown> {
  return {
    schemas: [GROUP_SCHEMA],
    id: g.id,
    displayName: g.state.displayName,
    ...(g.state.externalId ? { externalId: g.state.externalId } : {}),
    ...(withMembers
      ? {
          members: g.state.members.map((id) => ({
            value: id,
            display: g.memberNames.get(id),
            $ref: `${base}/Users/${id}`,
          })),
        }
      : {}),
    meta: {
      resourceType: 'Group',
      created: g.created.toISOString(),
      lastModified: g.lastModified.toISOString(),
      location: `${base}/Groups/${g.id}`,
    },
  };
}
