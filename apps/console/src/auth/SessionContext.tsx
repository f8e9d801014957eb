import { useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { setUnauthorizedHandler } from '../api/client';
import { forgetSsoTab, loadSession, saveSession, ssoTabRemembered, type Session } from './session';

interface SessionState {
  session: Session | null;
  signIn: (s: Session) => void;
  signOut: () => void;
  /** The user's own sign-out: also at the identity provider when signed in through SSO. */
  signOutEverywhere: () => void;
}

const Ctx = createContext<SessionState>({
  session: null,
  signIn: () => undefined,
  signOut: () => undefined,
  signOutEverywhere: () => undefined,
});

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | null>(loadSession);
  const queries = useQueryClient();
  const signIn = useCallback(
    (s: Session) => {
      const before = loadSession();
      saveSession(s);
      // A renewed token for the same person keeps what is loaded; another person starts afresh.
      if (before?.sub !== s.sub || before.org !== s.org) queries.clear();
      setSession(s);
    },
    [queries],
  );
  const signOut = useCallback(() => {
    // No renewal may sign the person in again (oidc-client-ts is loaded already when this tab signed in with SSO).
    if (ssoTabRemembered()) void import('./oidc').then((oidc) => oidc.stopRenewal());
    saveSession(null);
    queries.clear();
    setSession(null);
  }, [queries]);
  const signOutEverywhere = useCallback(() => {
    const sso = session?.sso;
    signOut();
    forgetSsoTab();
    // oidc-client-ts loads only for SSO sessions (it is not part of the first load).
    if (sso) void import('./oidc').then((oidc) => oidc.signOutAtIdp(sso));
  }, [session, signOut]);
  // A refused token (401) signs out here only: the IdP session may still be good for a fresh token (the sign-in page
  // tries it silently).
  useEffect(() => setUnauthorizedHandler(signOut), [signOut]);
  return <Ctx.Provider value={{ session, signIn, signOut, signOutEverywhere }}>{children}</Ctx.Provider>;
}

export const useSession = () => useContext(Ctx);
