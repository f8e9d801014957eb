import { Logger } from '@nestjs/common';
import { createLocalJWKSet, errors as joseErrors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';

export interface JwksCacheOptions {
  /** Keys older than this are fetched again before the next verification (default 10 min). */
  maxAgeMs: number;
  /**
   * An unknown key id fetches the set again, at most once per this
   * (default 30 s: a stream of forged kids costs little).
   */
  cooldownMs: number;
  now?: () => number;
  fetch?: (url: URL) => Promise<Response>;
}

/**
 * The issuer's signing keys (its JWKS), fetched when first needed, again after `maxAgeMs`, and on an unknown key id
 * (a key the issuer rotated in) outside the cooldown. A key the issuer removed stops verifying at the next refresh,
 * and `onKeysRemoved` tells the holder so it can forget verifications made with it. A failed refresh keeps the keys
 * it has (the issuer being down must not sign everybody out) and is tried again at the next verification.
 */
export class JwksCache {
  private readonly logger = new Logger(JwksCache.name);
  private keys?: JWTVerifyGetKey;
  private kids = new Set<string>();
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private pending?: Promise<void>;
  private readonly now: () => number;

  constructor(
    private readonly url: URL,
    private readonly opts: JwksCacheOptions,
    private readonly onKeysRemoved: (removed: string[]) => void = () => undefined,
  ) {
    this.now = opts.now ?? Date.now;
  }

  /** For jose's jwtVerify. */
  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    if (!this.keys || this.now() - this.fetchedAt >= this.opts.maxAgeMs)
      await this.refresh().catch((err: unknown) => this.keepOld(err));
    try {
      // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- refresh set it or threw
      return await this.keys!(header, token);
    } catch (err) {
      if (!(err instanceof joseErrors.JWKSNoMatchingKey) || this.now() - this.fetchedAt < this.opts.cooldownMs)
        throw err;
      await this.refresh().catch((e: unknown) => this.keepOld(e));
      return this.keys!(header, token); // eslint-disable-line @typescript-eslint/no-non-null-assertion -- as above
    }
  };

  /** Fetches the key set now (also what an operator's or a test's explicit refresh calls). */
  refresh(): Promise<void> {
    this.pending ??= this.load().finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async load(): Promise<void> {
    const res = await (this.opts.fetch ?? ((u: URL) => fetch(u, { signal: AbortSignal.timeout(10_000) })))(this.url);
    if (!res.ok) throw new Error(`OIDC JWKS fetch failed: HTTP ${res.status}`);
    const set = (await res.json()) as JSONWebKeySet;
    if (!Array.isArray(set.keys)) throw new Error('OIDC JWKS document has no keys array');
    const kids = new Set(set.keys.map((k) => k.kid).filter((k): k is string => typeof k === 'string'));
    const removed = [...this.kids].filter((k) => !kids.has(k));
    this.keys = createLocalJWKSet(set);
    this.kids = kids;
    this.fetchedAt = this.now();
    if (removed.length) this.onKeysRemoved(removed);
  }

  private keepOld(err: unknown): void {
    if (!this.keys) throw err;
    this.logger.warn(
      `OIDC JWKS refresh failed (${err instanceof Error ? err.message : String(err)}); keeping the keys fetched before`,
    );
  }
}
