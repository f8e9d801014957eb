import { InMemoryWebStorage, UserManager, WebStorageStateStore } from 'oidc-client-ts';
import type { Session } from './session';

let manager: UserManager | null = null;

/**
 * The organisation's SSO as a public client: authorization code + PKCE, no secret in the browser. Its tokens are kept
 * in memory only and renewed before they expire with the refresh token when the provider issues one (the CSP frames
 * nothing, so there is no hidden-iframe renewal: without a refresh token, an expired session signs in again). The
 * sign-in round trip's state (PKCE verifier) stays in sessionStorage, where the redirect needs it.
 */
export function userManager(issuer: string, clientId: string): UserManager {
  manager ??= new UserManager({
    authority: issuer,
    client_id: clientId,
    redirect_uri: `${window.location.origin}/auth/callback`,
    response_type: 'code',
    scope: 'openid profile email',
    loadUserInfo: false,
    automaticSilentRenew: true,
    userStore: new WebStorageStateStore({ store: new InMemoryWebStorage() }),
  });
  return manager;
}

const PENDING = 'warden.oidc';

/** Remembers which provider a redirect went to, so the callback page can finish with the same settings. */
export async function startSignIn(issuer: string, clientId: string): Promise<void> {
  sessionStorage.setItem(PENDING, JSON.stringify({ issuer, clientId }));
  await userManager(issuer, clientId).signinRedirect();
}

/** Finishes the redirect: exchanges the code (with the PKCE verifier) for tokens; returns the access token. */
export async function finishSignIn(): Promise<{
  accessToken: string;
  expiresAt: number;
  manager: UserManager;
  sso: NonNullable<Session['sso']>;
}> {
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null') as { issuer: string; clientId: string } | null;
  if (!pending) throw new Error('No sign-in was started from this tab. Start again from the sign-in page.');
  const users = userManager(pending.issuer, pending.clientId);
  const user = await users.signinRedirectCallback();
  sessionStorage.removeItem(PENDING);
  return {
    accessToken: user.access_token,
    expiresAt: (user.expires_at ?? Date.now() / 1000 + 3600) * 1000,
    manager: users,
    sso: { ...pending, idToken: user.id_token ?? '' },
  };
}

/** Ends the session at the identity provider too (RP-initiated logout), then comes back to the sign-in page. */
export async function signOutAtIdp(sso: NonNullable<Session['sso']>): Promise<void> {
  await userManager(sso.issuer, sso.clientId).signoutRedirect({
    id_token_hint: sso.idToken || undefined,
    post_logout_redirect_uri: `${window.location.origin}/`,
  });
}
