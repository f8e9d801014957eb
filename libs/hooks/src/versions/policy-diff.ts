import { canonicalJson } from '@warden/common';

/** One difference between two policy versions, at a JSON pointer (RFC 6901) into the config. */
export interface PolicyChange {
  op: 'add' | 'remove' | 'replace';
  path: string;
  before?: unknown;
  after?: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The leaf-level changes from `before` to `after`: objects key by key, arrays index by index (a hook added at the
 * end of `class_hooks` is one `add` at `/hooks/class_hooks/2`), anything else replaced whole when it differs.
 */
export function policyDiff(before: unknown, after: unknown, path = ''): PolicyChange[] {
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((k) => entryDiff(k in before, before[k], k in after, after[k], `${path}/${escape(k)}`));
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const length = Math.max(before.length, after.length);
    return Array.from({ length }, (_, i) => i).flatMap((i) =>
      entryDiff(i < before.length, before[i], i < after.length, after[i], `${path}/${i}`),
    );
  }
  return canonicalJson(before) === canonicalJson(after) ? [] : [{ op: 'replace', path, before, after }];
}

function entryDiff(
  hadBefore: boolean,
  before: unknown,
  hasAfter: boolean,
  after: unknown,
  path: string,
): PolicyChange[] {
  if (!hadBefore) return [{ op: 'add', path, after }];
  if (!hasAfter) return [{ op: 'remove', path, before }];
  return policyDiff(before, after, path);
}
