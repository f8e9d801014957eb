import { Alert, Anchor, Center, Loader, Stack } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useSession } from './SessionContext';
import { forgetSsoTab, rememberSsoTab } from './session';

/** Who the server says the token's holder is. */
async function whoAmI(accessToken: string): Promise<{ sub: string; org: string; roles: string[] }> {
  const res = await fetch('/api/me', { headers: { authorization: `Bearer ${accessToken}` } });
  const me = (await res.json()) as { sub?: string; org?: string; roles?: string[]; message?: string };
  if (!res.ok) throw new Error(me.message ?? `the server refused the token (${res.status})`);
  if (!me.sub || !me.org) throw new Error('the server did not say who you are (no sub or org in /api/me)');
  return { sub: me.sub, org: me.org, roles: me.roles ?? [] };
}

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
      const { finishSignIn, keepRenewed } = await import('./oidc');
      const outcome = await finishSignIn();
      // A silent attempt the provider cannot answer without the person (no session there): the sign-in page.
      if (!outcome.signedIn) return void navigate('/', { replace: true });
      const { tokens, sso, returnTo } = outcome;
      const who = await whoAmI(tokens.accessToken);
      const session = (t: typeof tokens) => ({
        ...who,
        sso: { ...sso, idToken: t.idToken || sso.idToken },
        token: t.accessToken,
        expiresAt: new Date(t.expiresAt).toISOString(),
      });
      signIn(session(tokens));
      rememberSsoTab();
      // Each renewed token replaces the one in memory; the person notices nothing.
      keepRenewed(sso, (renewed) => signIn(session(renewed)));
      void navigate(returnTo, { replace: true });
    })().catch((err: unknown) => {
      forgetSsoTab(); // "Back to sign-in" asks the person, rather than trying silently again
      setError((err as Error).message);
    });
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
