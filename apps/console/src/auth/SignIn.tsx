import { Alert, Button, Center, Loader, Paper, Stack, TagsInput, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState, type SyntheticEvent } from 'react';
import { ApiError } from '../api/client';
import { data, http } from '../api/typed';
import { useSession } from './SessionContext';
import type { Provider } from './oidc';
import { ssoTabRemembered } from './session';

/** Dev mode: pick any user, org and roles (the server mints the token). OIDC: sign in at the organisation's SSO. */
export function SignIn() {
  const { signIn } = useSession();
  const config = useQuery({ queryKey: ['auth-config'], queryFn: () => data(http.GET('/api/auth/config')) });
  const [sub, setSub] = useState('demo-admin');
  const [org, setOrg] = useState('demo');
  const [roles, setRoles] = useState<string[]>(['admin']);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function sso(provider: Provider, silent = false) {
    setBusy(true);
    setError(null);
    try {
      // oidc-client-ts loads only for SSO sign-in, not with every first load.
      const { startSignIn } = await import('./oidc');
      await startSignIn(provider, { silent });
    } catch (err) {
      setError(`The identity provider cannot be reached: ${(err as Error).message}`);
      setBusy(false);
    }
  }

  async function submit(e: SyntheticEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const res = await data(http.POST('/api/dev/sign-in', { body: { sub, org, roles } }));
      signIn({ token: res.token, sub, org, roles, expiresAt: res.expires_at });
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  }

  const issuer = config.data?.oidc_issuer;
  const clientId = config.data?.oidc_client_id;
  const scope = config.data?.oidc_scope ?? 'openid profile email';
  // This tab was signed in through SSO (a reload, an expired session): back to the provider without asking.
  const [silent] = useState(ssoTabRemembered);
  const tried = useRef(false);
  useEffect(() => {
    if (!silent || !issuer || !clientId || tried.current) return;
    tried.current = true;
    void sso({ issuer, clientId, scope }, true);
  }, [silent, issuer, clientId, scope]);
  if (silent && !error && !config.error) {
    return (
      <Center mih="100vh">
        <Loader aria-label="Signing in" />
      </Center>
    );
  }
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={420}>
        <Title order={1} size="h2" mb="xs">
          Sign in to Warden
        </Title>
        {issuer && clientId && (
          <Stack>
            <Text size="sm" c="dimmed">
              Sign in with your organisation's account ({issuer}).
            </Text>
            {error && (
              <Alert color="red" role="alert">
                {error}
              </Alert>
            )}
            <Button loading={busy} onClick={() => void sso({ issuer, clientId, scope })}>
              Sign in with SSO
            </Button>
          </Stack>
        )}
        {config.data && !config.data.dev_sign_in && !(config.data.oidc_issuer && config.data.oidc_client_id) && (
          <Alert color="orange" title="Sign-in is not configured">
            The server verifies SSO tokens but has no console client: an operator sets OIDC_CLIENT_ID (a public client
            with {window.location.origin}/auth/callback as its redirect URI).
          </Alert>
        )}
        {config.data?.dev_sign_in && (
          <form onSubmit={(e) => void submit(e)} aria-label="Dev sign-in">
            <Stack>
              <Text size="sm" c="dimmed">
                Dev sign-in: choose who you are. Only available in dev auth mode, never in production.
              </Text>
              <TextInput label="User (sub)" value={sub} onChange={(e) => setSub(e.currentTarget.value)} required />
              <TextInput label="Organisation" value={org} onChange={(e) => setOrg(e.currentTarget.value)} required />
              <TagsInput label="Roles" value={roles} onChange={setRoles} placeholder="admin (press Enter)" />
              {error && (
                <Alert color="red" role="alert">
                  {error}
                </Alert>
              )}
              <Button type="submit" loading={busy}>
                Sign in
              </Button>
            </Stack>
          </form>
        )}
        {config.error && (
          <Alert color="red" role="alert">
            The server cannot be reached: {config.error.message}
          </Alert>
        )}
      </Paper>
    </Center>
  );
}
