import { Alert, Anchor, Center, Loader, Stack } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useSession } from './SessionContext';

/** Where the identity provider sends the browser back: finish the code exchange, learn who we are, go on. */
export function OidcCallback() {
  const { signIn } = useSession();
  const navigate = useNavigate();
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return; // the code can be exchanged once only (StrictMode runs effects twice)
    started.current = true;
    (async () => {
      const { finishSignIn } = await import('./oidc');
      const { accessToken, expiresAt, manager, sso } = await finishSignIn();
      const res = await fetch('/api/me', { headers: { authorization: `Bearer ${accessToken}` } });
      const me = (await res.json()) as { sub?: string; org?: string; roles?: string[]; message?: string };
      if (!res.ok) throw new Error(me.message ?? `the server refused the token (${res.status})`);
      if (!me.sub || !me.org) throw new Error('the server did not say who you are (no sub or org in /api/me)');
      const who = { sub: me.sub, org: me.org, roles: me.roles ?? [] };
      signIn({ ...who, sso, token: accessToken, expiresAt: new Date(expiresAt).toISOString() });
      // Silent renewal: each renewed token replaces the one in memory.
      manager.events.addUserLoaded((user) =>
        signIn({
          ...who,
          sso: { ...sso, idToken: user.id_token ?? sso.idToken },
          token: user.access_token,
          expiresAt: new Date((user.expires_at ?? 0) * 1000).toISOString(),
        }),
      );
      void navigate('/', { replace: true });
    })().catch((err: unknown) => setError((err as Error).message));
  }, [navigate, signIn]);
  return (
    <Center mih="100vh">
      {error ? (
        <Stack>
          <Alert color="red" role="alert" title="Sign-in failed">
            {error}
          </Alert>
          <Anchor href="/">Back to sign-in</Anchor>
        </Stack>
      ) : (
        <Loader aria-label="Signing in" />
      )}
    </Center>
  );
}
