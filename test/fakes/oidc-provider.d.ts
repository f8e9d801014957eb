// oidc-provider 9 ships no type declarations; this declares the part the test IdP (oidc-idp.ts) uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface AccessTokenLike {
    accountId?: string;
    clientId?: string;
  }

  export interface Grant {
    addOIDCScope(scope: string): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }

  export interface KoaContextWithOIDC {
    oidc: {
      provider: { Grant: new (init: { clientId: string; accountId: string }) => Grant };
      client?: { clientId: string };
      session?: { accountId?: string };
      params?: Record<string, unknown>;
    };
  }

  /** The client as `clientBasedCORS` and `issueRefreshToken` see it. */
  export interface ClientLike {
    clientId: string;
    redirectUris?: string[];
    grantTypeAllowed(grantType: string): boolean;
  }

  export interface Account {
    accountId: string;
    claims(): Record<string, unknown>;
  }

  export interface Configuration {
    clients?: Array<Record<string, unknown>>;
    jwks?: { keys: Array<Record<string, unknown>> };
    pkce?: { required?: () => boolean };
    ttl?: Record<string, number>;
    cookies?: { keys?: string[] };
    claims?: Record<string, string[]>;
    findAccount?: (ctx: KoaContextWithOIDC, sub: string) => Account | undefined | Promise<Account | undefined>;
    extraTokenClaims?: (ctx: KoaContextWithOIDC, token: AccessTokenLike) => Record<string, unknown> | undefined;
    loadExistingGrant?: (ctx: KoaContextWithOIDC) => Promise<Grant | undefined>;
    features?: Record<string, Record<string, unknown>>;
    clientBasedCORS?: (ctx: KoaContextWithOIDC, origin: string, client: ClientLike) => boolean;
    issueRefreshToken?: (ctx: KoaContextWithOIDC, client: ClientLike) => boolean | Promise<boolean>;
  }

  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: 'grant.success', listener: (ctx: KoaContextWithOIDC) => void): this;
  }
}
