/** How long a verification is reused at most: a key removed from the issuer's JWKS stops working within this. */
export const VERIFIED_TOKEN_TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

/**
 * Tokens verified recently, with their claims: the same bearer token on the next request (a chat, its stream, the
 * decision) skips the signature check. An entry lives until the token's `exp` or VERIFIED_TOKEN_TTL_MS, whichever
 * comes first; only successful verifications are kept, so a bad token is checked (and refused) every time.
 */
export class VerifiedTokens<C> {
  private readonly entries = new Map<string, { claims: C; until: number }>();

  /** Forgets every verification (the issuer removed a signing key: tokens it signed must be checked again). */
  clear(): void {
    this.entries.clear();
  }

  get(token: string, now = Date.now()): C | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (entry.until > now) return entry.claims;
    this.entries.delete(token);
    return undefined;
  }

  set(token: string, claims: C, expiresAtS: number, now = Date.now()): void {
    const until = Math.min(expiresAtS * 1000, now + VERIFIED_TOKEN_TTL_MS);
    if (until <= now) return;
    // Oldest first out (insertion order) when full.
    if (this.entries.size >= MAX_ENTRIES)
      for (const oldest of this.entries.keys()) {
        this.entries.delete(oldest);
        break;
      }
    this.entries.set(token, { claims, until });
  }
}
