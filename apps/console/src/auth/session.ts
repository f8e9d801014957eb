/** The signed-in user's token and who they are, kept per browser profile (localStorage). */
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

export function loadSession(): Session | null {
  try {
    const s = JSON.parse(localStorage.getItem(KEY) ?? 'null') as Session | null;
    return s && new Date(s.expiresAt).getTime() > Date.now() ? s : null;
  } catch {
    return null;
  }
}

export function saveSession(s: Session | null): void {
  if (s) localStorage.setItem(KEY, JSON.stringify(s));
  else localStorage.removeItem(KEY);
}

export const isAdmin = (s: Session | null) => !!s?.roles.includes('admin');
