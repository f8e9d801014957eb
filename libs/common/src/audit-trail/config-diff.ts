import { canonicalJson } from './canonical-json.js';

/** One changed value: its dotted path and the values on both sides (absent = undefined, shown as null). */
export interface ConfigChange {
  path: string;
  before?: unknown;
  after?: unknown;
  /** For a secret: it changed, and nothing else about it is recorded. */
  secret_changed?: true;
}

/**
 * The leaf-level differences between two JSON values. Objects are walked key by key; arrays and scalars are compared
 * whole (a hook list that changed shows as the list before and after), so the diff reads like the config did.
 */
export function configDiff(before: unknown, after: unknown, path = ''): ConfigChange[] {
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((k) => configDiff(before[k], after[k], path ? `${path}.${k}` : k));
  }
  // Key order is not a change (jsonb reorders keys): compare canonical texts.
  if (canonicalJson(before ?? null) === canonicalJson(after ?? null)) return [];
  return [{ path: path || '(root)', before: before ?? null, after: after ?? null }];
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date);
}

/** Names of the secrets whose value differs (added, removed or replaced); the values themselves go nowhere. */
export function changedSecrets(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  return [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => before[k] !== after[k]).sort();
}
