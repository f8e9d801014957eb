/**
 * The signed-in user's token and who they are. Never in localStorage (any script of the origin, any tab, kept on
 * disk): an SSO session lives in memory only (renewed with the refresh token before it expires; a reload signs in
 * again through the identity provider's session), a dev session in this tab's sessionStorage (gone with the tab; dev
 * tokens are for trying out).
 */
export interface Session {
  token: string;
  sub: string;
  org: string;
  roles: string[];
  expiresAt: string;
  /** Signed in through SSO: where to sign out (RP-initiated logout with the id token as hint). */
  sso?: { issuer: string; clientId: string; idToken: string };
}

const KEY = 'warden.session';
let inMemory: Session | null = null;

const live = (s: Session | null) => (s && new Date(s.expiresAt).getTime() > Date.now() ? s : null);

export function loadSession(): Session | null {
  if (inMemory) return live(inMemory);
  try {
    return live(JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Session | null);
  } catch {
    return null;
  }
}

export function saveSession(s: Session | null): void {
  inMemory = s?.sso ? s : null;
  if (s && !s.sso) sessionStorage.setItem(KEY, JSON.stringify(s));
  else sessionStorage.removeItem(KEY);
  localStorage.removeItem(KEY); // a session an older console kept there
}

const SSO_TAB = 'warden.sso-tab';

/**
 * This tab signed in through SSO (a flag, no token): after a reload the sign-in page goes back to the identity provider
 * silently (`prompt=none`) instead of asking. Cleared by signing out and by a provider that answers it needs the
 * person.
 */
export function rememberSsoTab(): void {
  sessionStorage.setItem(SSO_TAB, '1');
}

export function forgetSsoTab(): void {
  sessionStorage.removeItem(SSO_TAB);
}

export const ssoTabRemembered = (): boolean => sessionStorage.getItem(SSO_TAB) === '1';

export const isAdmin = (s: Session | null) => !!s?.roles.includes('admin');

/** Who builds workflows: admins and designers (the server's rule for the workflow routes). */
export const isBuilder = (s: Session | null) => !!s?.roles.some((r) => r === 'admin' || r === 'designer');
