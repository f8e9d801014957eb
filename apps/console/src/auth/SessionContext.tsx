import { useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { setUnauthorizedHandler } from '../api/client';
import { loadSession, saveSession, type Session } from './session';

interface SessionState {
  session: Session | null;
  signIn: (s: Session) => void;
  signOut: () => void;
}

const Ctx = createContext<SessionState>({ session: null, signIn: () => undefined, signOut: () => undefined });

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
    saveSession(null);
    queries.clear();
    setSession(null);
  }, [queries]);
  useEffect(() => setUnauthorizedHandler(signOut), [signOut]);
  return <Ctx.Provider value={{ session, signIn, signOut }}>{children}</Ctx.Provider>;
}

export const useSession = () => useContext(Ctx);
