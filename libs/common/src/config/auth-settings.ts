import { DEV_AUTH_SECRET_DEFAULT } from './environment.js';
import { ServerSettings } from './server-settings.js';

/**
 * Who signs in and how a bearer token is read: dev tokens or an OIDC issuer, the token's claims, the console's
 * sign-in. A layer of AppConfig (see server-settings.ts); it extends ServerSettings because dev sign-in depends on
 * whether this is production.
 */
export class AuthSettings extends ServerSettings {
  get authMode(): 'dev' | 'oidc' {
    return (
      (this.env.AUTH_MODE as 'dev' | 'oidc' | undefined) ??
      (this.env.OIDC_ISSUER || this.env.OIDC_JWKS_URL ? 'oidc' : 'dev')
    );
  }
  get devSecret(): string {
    return this.env.AUTH_DEV_SECRET ?? DEV_AUTH_SECRET_DEFAULT;
  }
  get devSecretIsDefault(): boolean {
    return !this.env.AUTH_DEV_SECRET;
  }
  /** The console's dev sign-in form mints tokens for anyone: dev auth outside production only. */
  get devSignIn(): boolean {
    return this.authMode === 'dev' && !this.isProduction;
  }
  get oidcIssuer(): string | undefined {
    return this.env.OIDC_ISSUER;
  }
  get oidcJwksUrl(): string | undefined {
    return this.env.OIDC_JWKS_URL;
  }
  get oidcAudience(): string | undefined {
    return this.env.OIDC_AUDIENCE;
  }
  /** Longest accepted token lifetime (exp - iat); a token without exp is refused. */
  get tokenMaxLifetimeS(): number {
    return this.env.AUTH_TOKEN_MAX_LIFETIME_S ?? 30 * 24 * 3600;
  }
  /** The console's public OIDC client (authorization code + PKCE, no secret). */
  get oidcClientId(): string | undefined {
    return this.env.OIDC_CLIENT_ID;
  }
  /** What the console asks its IdP for: the OpenID scopes, then OIDC_SCOPES (e.g. Entra ID's scope for the API). */
  get oidcConsoleScope(): string {
    return ['openid profile email', this.env.OIDC_SCOPES].filter(Boolean).join(' ');
  }
  /** The claim naming the user (their Warden `sub`, and the SCIM userName the directory provisions). */
  get userClaim(): string {
    return this.env.AUTH_USER_CLAIM ?? 'sub';
  }
  get orgClaim(): string {
    return this.env.AUTH_ORG_CLAIM ?? 'org_id';
  }
  get rolesClaim(): string {
    return this.env.AUTH_ROLES_CLAIM ?? 'roles';
  }
  /** Token claims that carry chat identities, as [platform, claim] pairs (`AUTH_IDENTITY_CLAIMS`). */
  get identityClaims(): Array<[platform: 'feishu' | 'slack' | 'wecom', claim: string]> {
    return (this.env.AUTH_IDENTITY_CLAIMS ?? '')
      .split(',')
      .filter(Boolean)
      .map((pair) => pair.split('=') as ['feishu' | 'slack' | 'wecom', string]);
  }
}
