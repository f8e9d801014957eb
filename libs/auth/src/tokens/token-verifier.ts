import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { AppConfig } from '@warden/common';
import { VerifiedTokens } from './verified-tokens.js';
import { errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { JwksCache } from './jwks-cache.js';

export class InvalidTokenError extends Error {}

export interface VerifiedClaims {
  sub: string;
  orgExternalId: string;
  roles: string[];
  email?: string;
  name?: string;
  /** Chat identities the IdP asserts (`AUTH_IDENTITY_CLAIMS`); linked on sign-in, audited as method `sso`. */
  identities?: Partial<Record<VerifiedPlatform, string>>;
}

type VerifiedPlatform = 'feishu' | 'slack' | 'wecom';

/** Verifies bearer tokens: HS256 with the dev secret, or RS256/ES256 against the OIDC issuer's JWKS. */
@Injectable()
export class TokenVerifier implements OnModuleInit {
  private readonly logger = new Logger(TokenVerifier.name);
  private jwks?: JwksCache;
  private jwksReady?: Promise<JwksCache>;
  private readonly verified = new VerifiedTokens<VerifiedClaims>();

  constructor(private readonly config: AppConfig) {}

  onModuleInit(): void {
    if (this.config.authMode === 'dev') {
      const secret = this.config.devSecretIsDefault ? 'the built-in default secret' : 'AUTH_DEV_SECRET';
      this.logger.warn(
        `AUTH_MODE=dev: accepting HS256 tokens signed with ${secret}. ` +
          'Do not expose this server; set AUTH_MODE=oidc with OIDC_ISSUER for real use.',
      );
    }
  }

  async verify(token: string): Promise<VerifiedClaims> {
    const known = this.verified.get(token);
    if (known) return known;
    let payload: JWTPayload;
    try {
      if (this.config.authMode === 'dev') {
        ({ payload } = await jwtVerify(token, new TextEncoder().encode(this.config.devSecret), {
          algorithms: ['HS256'],
          requiredClaims: ['exp'],
        }));
      } else {
        ({ payload } = await jwtVerify(token, await this.keySet(), {
          algorithms: ['RS256', 'ES256', 'PS256', 'EdDSA'],
          issuer: this.config.oidcIssuer,
          audience: this.config.oidcAudience,
          requiredClaims: ['exp'],
        }));
      }
    } catch (err) {
      throw new InvalidTokenError(describeJoseError(err));
    }
    const exp = this.checkLifetime(payload);
    const claims = this.claims(payload);
    this.verified.set(token, claims, exp);
    return claims;
  }

  /** A token that never expires (or lives longer than allowed) is a permanent key if it leaks. */
  private checkLifetime(payload: JWTPayload): number {
    // jose enforces requiredClaims ['exp'] as a number; checked again so a missing exp can never pass as NaN.
    if (typeof payload.exp !== 'number') throw new InvalidTokenError('token has no exp claim');
    const start = typeof payload.iat === 'number' ? Math.min(payload.iat, Date.now() / 1000) : Date.now() / 1000;
    const lifetime = payload.exp - start;
    if (lifetime > this.config.tokenMaxLifetimeS) {
      throw new InvalidTokenError(
        `token lifetime exceeds the allowed ${this.config.tokenMaxLifetimeS} s (AUTH_TOKEN_MAX_LIFETIME_S)`,
      );
    }
    return payload.exp;
  }

  private claims(payload: JWTPayload): VerifiedClaims {
    const sub = payload[this.config.userClaim];
    if (typeof sub !== 'string' || sub === '')
      throw new InvalidTokenError(`token has no ${this.config.userClaim} claim`);
    const org = payload[this.config.orgClaim];
    if (typeof org !== 'string' || org === '')
      throw new InvalidTokenError(`token has no ${this.config.orgClaim} claim`);
    const rawRoles = payload[this.config.rolesClaim] ?? [];
    if (!Array.isArray(rawRoles) || rawRoles.some((r) => typeof r !== 'string')) {
      throw new InvalidTokenError(`token claim ${this.config.rolesClaim} must be an array of strings`);
    }
    return {
      sub,
      orgExternalId: org,
      roles: [...new Set(rawRoles as string[])].sort(),
      email: typeof payload.email === 'string' ? payload.email : undefined,
      name: typeof payload.name === 'string' ? payload.name : undefined,
      identities: Object.fromEntries(
        this.config.identityClaims
          .map(([platform, claim]) => [platform, payload[claim]] as const)
          .filter(
            (e): e is readonly [VerifiedPlatform, string] =>
              typeof e[1] === 'string' && e[1] !== '' && e[1].length <= 200,
          ),
      ),
    };
  }

  /**
   * Fetches the issuer's keys now: a key it removed stops verifying (and tokens verified with it are forgotten), a
   * key it added verifies. The same refresh runs by itself when the keys are 10 minutes old.
   */
  async refreshKeys(): Promise<void> {
    if (this.config.authMode === 'dev') return;
    await (await this.keyCache()).refresh();
  }

  private async keySet(): Promise<JWTVerifyGetKey> {
    return (await this.keyCache()).getKey;
  }

  private keyCache(): Promise<JwksCache> {
    if (this.jwks) return Promise.resolve(this.jwks);
    this.jwksReady ??= this.discoverJwks()
      .then((set) => (this.jwks = set))
      .catch((err: unknown) => {
        this.jwksReady = undefined;
        throw err;
      });
    return this.jwksReady;
  }

  private async discoverJwks(): Promise<JwksCache> {
    let url = this.config.oidcJwksUrl;
    if (!url) {
      // The environment check at start-up demands OIDC_ISSUER in oidc mode; refuse rather than fetch "undefined/...".
      const issuer = this.config.oidcIssuer?.replace(/\/$/, '');
      if (!issuer) throw new Error('OIDC discovery needs OIDC_ISSUER (or OIDC_JWKS_URL)');
      const res = await fetch(`${issuer}/.well-known/openid-configuration`);
      if (!res.ok) throw new Error(`OIDC discovery failed: HTTP ${res.status}`);
      const doc = (await res.json()) as { jwks_uri?: string };
      if (!doc.jwks_uri) throw new Error('OIDC discovery document has no jwks_uri');
      url = doc.jwks_uri;
    }
    return new JwksCache(new URL(url), { maxAgeMs: 10 * 60_000, cooldownMs: 30_000 }, () => this.verified.clear());
  }
}

function describeJoseError(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'token expired';
  if (err instanceof joseErrors.JWTClaimValidationFailed && err.claim === 'exp' && err.reason === 'missing')
    return 'token has no exp claim: tokens must expire';
  if (err instanceof joseErrors.JWTClaimValidationFailed) return `token claim "${err.claim}" is invalid: ${err.reason}`;
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return 'token signature is invalid';
  if (err instanceof joseErrors.JOSEAlgNotAllowed) return 'token algorithm is not accepted in this auth mode';
  if (err instanceof joseErrors.JWKSNoMatchingKey) return 'token was not signed by a key of the issuer';
  if (err instanceof joseErrors.JWSInvalid || err instanceof joseErrors.JWTInvalid) return 'token is malformed';
  if (err instanceof Error && err.message.includes('OIDC')) return `cannot verify token: ${err.message}`;
  return 'token is invalid';
}
