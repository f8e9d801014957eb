/**
 * The origin (scheme, host, port) a stored secret is bound to: `https://API.example:443/v1` is
 * `https://api.example`. Null for anything but an absolute http(s) URL. A secret stored for one origin is never sent
 * to another: changing a URL to another origin requires entering the secret again.
 */
export function originOf(url: unknown): string | null {
  if (typeof url !== 'string') return null;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
  } catch {
    return null;
  }
}

/** Whether two URLs share an origin (both must be absolute http(s) URLs). */
export function sameOrigin(a: unknown, b: unknown): boolean {
  const origin = originOf(a);
  return origin !== null && origin === originOf(b);
}

/**
 * The problem (for a 400) when `field` moves from `before` to `after`, another origin, while the stored secrets
 * `kept` (not entered again with the change) would follow it there; null when nothing would leak.
 */
export function secretsFollowProblem(c: {
  field: string;
  before: string;
  after: string;
  kept: string[];
}): string | null {
  if (c.kept.length === 0 || sameOrigin(c.before, c.after)) return null;
  const secrets = [...c.kept].sort().join(', ');
  return `changing ${c.field} to another origin requires re-entering the stored secrets: ${secrets}`;
}
