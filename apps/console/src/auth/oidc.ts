import { ErrorResponse, InMemoryWebStorage, UserManager, WebStorageStateStore, type User } from 'oidc-client-ts';
import { forgetSsoTab, type Session } from './session';
import { renewAfterS } from './renew-after';

type Sso = NonNullable<Session['sso']>;

/** A token from the identity provider, as the session keeps it. */
export interface SsoTokens {
  accessToken: string;
  expiresAt: number;
  idToken: string;
}

let manager: UserManager | null = null;
let renewal: ReturnType<typeof setTimeout> | undefined;

/**
 * The organisation's SSO as a public client: authorization code + PKCE, no secret in the browser. Its tokens are kept
 * in memory only. Renewal is ours (keepRenewed), with the refresh token: no hidden iframe (the CSP frames nothing, and
 * browsers that block third-party cookies break iframe renewal). The sign-in round trip's state (PKCE verifier) stays
 * in sessionStorage, where the redirect needs it.
 */
export function userManager(issuer: string, clientId: string, scope = 'openid profile email'): UserManager {
  manager ??= new UserManager({
    authority: issuer,
    client_id: clientId,
    redirect_uri: `${window.location.origin}/auth/callback`,
    response_type: 'code',
    scope,
    loadUserInfo: false,
    automaticSilentRenew: false,
    userStore: new WebStorageStateStore({ store: new InMemoryWebStorage() }),
  });
  return manager;
}

const PENDING = 'warden.oidc';

/** The provider as the server's /api/auth/config describes it (`scope`: what the console asks for). */
export interface Provider {
  issuer: string;
  clientId: string;
  scope: string;
}

/**
 * Sends the browser to the provider. `silent` asks it not to show anything (`prompt=none`): with a live session there
 * it answers with a code at once (a reload signs in again unnoticed), without one it answers `login_required`.
 * The page the person was on comes back with the answer.
 */
export async function startSignIn(provider: Provider, opts: { silent?: boolean } = {}): Promise<void> {
  sessionStorage.setItem(PENDING, JSON.stringify(provider));
  const returnTo = window.location.pathname + window.location.search;
  await userManager(provider.issuer, provider.clientId, provider.scope).signinRedirect({
    prompt: opts.silent ? 'none' : undefined,
    state: { returnTo },
  });
}

export type SignInOutcome =
  { signedIn: true; tokens: SsoTokens; sso: Sso; returnTo: string } | { signedIn: false; reason: string };

/** The answers of a `prompt=none` request when the provider would have to ask the person something. */
const NEEDS_THE_PERSON = new Set([
  'login_required',
  'interaction_required',
  'consent_required',
  'account_selection_required',
]);

/** Finishes the redirect: exchanges the code (with the PKCE verifier) for tokens. */
export async function finishSignIn(): Promise<SignInOutcome> {
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null') as Provider | null;
  if (!pending) throw new Error('No sign-in was started from this tab. Start again from the sign-in page.');
  const users = userManager(pending.issuer, pending.clientId, pending.scope);
  let user: User;
  try {
    user = await users.signinRedirectCallback();
  } catch (err) {
    forgetSsoTab();
    if (err instanceof ErrorResponse && err.error && NEEDS_THE_PERSON.has(err.error))
      return { signedIn: false, reason: err.error };
    throw err;
  } finally {
    sessionStorage.removeItem(PENDING);
  }
  const returnTo = (user.state as { returnTo?: string } | undefined)?.returnTo;
  return {
    signedIn: true,
    tokens: tokensOf(user),
    sso: { issuer: pending.issuer, clientId: pending.clientId, idToken: user.id_token ?? '' },
    returnTo: returnTo?.startsWith('/') && !returnTo.startsWith('/auth/') ? returnTo : '/',
  };
}

const tokensOf = (user: User): SsoTokens => ({
  accessToken: user.access_token,
  expiresAt: (user.expires_at ?? Date.now() / 1000 + 300) * 1000,
  idToken: user.id_token ?? '',
});

/**
 * Renews the token before it expires, with the refresh token (the provider rotates it at each use), and hands each
 * new one to `onToken`. A provider that issues no refresh token gets no renewal: the session ends with the token and
 * the next page load signs in again through the provider's session. A failed renewal is tried again while the token
 * is still good; after that the API answers 401 and the console shows the sign-in page (which tries silently first).
 */
export function keepRenewed(sso: Sso, onToken: (tokens: SsoTokens) => void): void {
  stopRenewal();
  const users = userManager(sso.issuer, sso.clientId);
  const schedule = (user: User | null, delayS?: number) => {
    if (!user?.refresh_token || user.expires_in === undefined) return;
    renewal = setTimeout(() => void renew(user), (delayS ?? renewAfterS(user.expires_in)) * 1000);
  };
  const renew = async (current: User) => {
    try {
      const user = await users.signinSilent();
      if (!user) return;
      onToken(tokensOf(user));
      schedule(user);
    } catch {
      const leftS = current.expires_in ?? 0;
      if (leftS > 4) schedule(current, leftS / 2);
    }
  };
  void users.getUser().then((user) => schedule(user));
}

export function stopRenewal(): void {
  clearTimeout(renewal);
  renewal = undefined;
}

/** Ends the session at the identity provider too (RP-initiated logout), then comes back to the sign-in page. */
export async function signOutAtIdp(sso: Sso): Promise<void> {
  stopRenewal();
  forgetSsoTab();
  const users = userManager(sso.issuer, sso.clientId);
  await users.removeUser();
  await users.signoutRedirect({
    id_token_hint: sso.idToken || undefined,
    post_logout_redirect_uri: `${window.location.origin}/`,
  });
}
