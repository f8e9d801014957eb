import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider, { type Configuration } from 'oidc-provider';

/** A person at the IdP: `groups` is what the IdP asserts in the roles claim. */
export interface IdpAccount {
  sub: string;
  org: string;
  groups: string[];
  name?: string;
  email?: string;
}

/** A service account: a confidential client using the client credentials grant. */
export interface IdpService {
  clientId: string;
  clientSecret: string;
  org: string;
  groups: string[];
}

export interface IdpOptions {
  consoleClientId: string;
  /** The `aud` of access tokens (Warden's OIDC_AUDIENCE). */
  audience: string;
  accounts: IdpAccount[];
  services?: IdpService[];
  /** Claim names, as the IdP is configured to emit them (Warden's AUTH_ORG_CLAIM, AUTH_ROLES_CLAIM). */
  claims: { org: string; roles: string };
  /** Lifetime of the access tokens it issues for Warden (3600 s by default; seconds, to see renewals in a test). */
  accessTokenTtlS?: number;
}

export interface OidcIdp {
  url: string;
  /** Every request the IdP received (method and path), in order. */
  requests: Array<{ method: string; path: string; query: URLSearchParams }>;
  /** The grant type of every token the token endpoint issued, in order (`refresh_token` for each renewal). */
  grants: string[];
  /** The refresh token presented at each renewal (all different when the IdP rotates them). */
  refreshTokensPresented: string[];
  /** Registers the console's redirect and post-logout URIs (known once Warden listens). */
  setConsole(origin: string): Promise<void>;
  /** A new signing key; `publish` only adds it to the JWKS, `sign` makes it the signing key. Returns its kid. */
  addKey(opts: { sign: boolean }): Promise<string>;
  removeKey(kid: string): Promise<void>;
  clientCredentialsToken(service: IdpService): Promise<string>;
  close(): Promise<void>;
}

const RESOURCE = 'https://warden.api.test/';

/**
 * A real OpenID Provider (panva's `oidc-provider`, OpenID Certified) configured as an organisation's IdP would be:
 * the console as a public client (authorization code + PKCE), service accounts with client credentials, JWT access
 * tokens for Warden's audience carrying org and group claims, RP-initiated logout, and a key set that can be rotated.
 * Sign-in is the provider's own login page (`devInteractions`), driven by the browser. A key change rebuilds the
 * provider with the new key set (its keystore is fixed at construction); sessions live in its shared memory adapter.
 */
export async function startOidcIdp(opts: IdpOptions): Promise<OidcIdp> {
  const keys: Array<JWK & { kid: string }> = [];
  let origin = 'http://127.0.0.1:9';
  let provider: Provider;
  const server: Server = createServer((req, res) => handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const requests: OidcIdp['requests'] = [];
  const grants: string[] = [];
  const refreshTokensPresented: string[] = [];
  const accessTokenTTL = opts.accessTokenTtlS ?? 3600;

  function handle(req: IncomingMessage, res: ServerResponse) {
    const u = new URL(req.url ?? '/', url);
    requests.push({ method: req.method ?? 'GET', path: u.pathname, query: u.searchParams });
    provider.callback()(req, res);
  }

  const claimsOf = (org: string, groups: string[]) => ({ [opts.claims.org]: org, [opts.claims.roles]: groups });

  function build(): void {
    const services = opts.services ?? [];
    const config: Configuration = {
      clients: [
        {
          client_id: opts.consoleClientId,
          token_endpoint_auth_method: 'none',
          // Refresh tokens for the SPA, bound to the IdP session and rotated at each use (as Okta's, Entra ID's and
          // Keycloak's SPA clients are set up): the console renews its token in memory with them.
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          redirect_uris: [`${origin}/auth/callback`],
          post_logout_redirect_uris: [`${origin}/`],
        },
        ...services.map((s) => ({
          client_id: s.clientId,
          client_secret: s.clientSecret,
          grant_types: ['client_credentials'],
          response_types: [],
          redirect_uris: [],
        })),
      ],
      jwks: { keys: [...keys].reverse() },
      pkce: { required: () => true },
      ttl: {
        AccessToken: accessTokenTTL,
        ClientCredentials: 3600,
        IdToken: 3600,
        Interaction: 600,
        Session: 3600,
        Grant: 3600,
        RefreshToken: 3600,
      },
      // The browser posts to the token endpoint from the console's origin: allowed for the public client whose
      // redirect URIs are on that origin ("web origins" / "trusted origins" in Keycloak / Okta), no other.
      clientBasedCORS: (_ctx, origin, client) =>
        client.redirectUris?.some((uri) => new URL(uri).origin === origin) ?? false,
      issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
      cookies: { keys: ['warden-test-idp-cookie-key'] },
      claims: { openid: ['sub'], profile: ['name'], email: ['email'] },
      findAccount: (_ctx, sub) => {
        const a = opts.accounts.find((x) => x.sub === sub);
        return (
          a && {
            accountId: a.sub,
            claims: () => ({ sub: a.sub, name: a.name, email: a.email, ...claimsOf(a.org, a.groups) }),
          }
        );
      },
      extraTokenClaims: (_ctx, token) => {
        const account = opts.accounts.find((a) => a.sub === token.accountId);
        if (account) return { name: account.name, email: account.email, ...claimsOf(account.org, account.groups) };
        const service = services.find((s) => s.clientId === token.clientId);
        return service && claimsOf(service.org, service.groups);
      },
      // The console is a first-party client: no consent screen (as an IdP admin configures for internal apps).
      loadExistingGrant: async (ctx) => {
        const clientId = ctx.oidc.client?.clientId;
        const accountId = ctx.oidc.session?.accountId;
        if (!clientId || !accountId) return undefined;
        const grant = new ctx.oidc.provider.Grant({ clientId, accountId });
        grant.addOIDCScope('openid profile email');
        grant.addResourceScope(RESOURCE, 'api');
        await grant.save();
        return grant;
      },
      features: {
        devInteractions: { enabled: true },
        clientCredentials: { enabled: true },
        rpInitiatedLogout: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => RESOURCE,
          useGrantedResource: () => true,
          getResourceServerInfo: () => ({
            scope: 'api',
            audience: opts.audience,
            accessTokenFormat: 'jwt',
            accessTokenTTL,
          }),
        },
      },
    };
    // Its start-up notices (in-memory adapter, dev interactions) are what a test IdP is; they are not printed.
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      if (!String(args[0]).startsWith('oidc-provider')) warn(...args);
    };
    try {
      provider = new Provider(url, config);
      provider.on('grant.success', (ctx) => {
        grants.push(String(ctx.oidc.params?.grant_type));
        const presented = ctx.oidc.params?.refresh_token;
        if (typeof presented === 'string') refreshTokensPresented.push(presented);
      });
    } finally {
      console.warn = warn;
    }
  }

  const idp: OidcIdp = {
    url,
    requests,
    grants,
    refreshTokensPresented,
    setConsole(o) {
      origin = o;
      build();
      return Promise.resolve();
    },
    async addKey({ sign }) {
      const { privateKey } = await generateKeyPair('RS256', { extractable: true });
      const kid = `k${keys.length + 1}-${Date.now().toString(36)}`;
      const jwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
      // The last key signs (build() reverses the list: oidc-provider signs with the first matching key).
      if (sign) keys.push(jwk);
      else keys.unshift(jwk);
      build();
      return kid;
    },
    removeKey(kid) {
      keys.splice(
        keys.findIndex((k) => k.kid === kid),
        1,
      );
      build();
      return Promise.resolve();
    },
    async clientCredentialsToken(service) {
      const res = await fetch(`${url}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${service.clientId}:${service.clientSecret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'api', resource: RESOURCE }),
      });
      const body = (await res.json()) as { access_token?: string; error?: string; error_description?: string };
      if (!body.access_token) throw new Error(`client credentials refused: ${body.error}: ${body.error_description}`);
      return body.access_token;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  await idp.addKey({ sign: true });
  return idp;
}
