import { AppShell, Badge, Burger, Group, Loader, NavLink, ScrollArea, Text, Title, Button } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Link, Navigate, Route, Routes, useLocation } from 'react-router-dom';
import { PendingProvider, usePendingForMe } from './approvals/PendingStream';
import { SessionProvider, useSession } from './auth/SessionContext';
import { OidcCallback } from './auth/OidcCallback';
import { SignIn } from './auth/SignIn';
import { isAdmin } from './auth/session';
import { lazy, Suspense, useRef } from 'react';
import { useRouteFocus } from './ui/useRouteFocus';

// Route-level code splitting: a page's code (and its libraries: the workflow graph, admin forms) loads when it opens.
const Approvals = lazy(() => import('./approvals/Approvals').then((m) => ({ default: m.Approvals })));
const AgentsList = lazy(() => import('./portal/AgentsList').then((m) => ({ default: m.AgentsList })));
const ChatView = lazy(() => import('./portal/ChatView').then((m) => ({ default: m.ChatView })));
const AdminRoutes = lazy(() => import('./admin/AdminRoutes').then((m) => ({ default: m.AdminRoutes })));
const WorkflowsRoutes = lazy(() => import('./workflows/WorkflowsRoutes').then((m) => ({ default: m.WorkflowsRoutes })));
const ChatAccounts = lazy(() => import('./me/ChatAccounts').then((m) => ({ default: m.ChatAccounts })));

export function App() {
  return (
    <SessionProvider>
      <Shell />
    </SessionProvider>
  );
}

function Shell() {
  const { session, signOutEverywhere } = useSession();
  const [opened, { toggle, close }] = useDisclosure();
  const location = useLocation();
  if (location.pathname === '/auth/callback') return <OidcCallback />;
  if (!session) return <SignIn />;
  return (
    <PendingProvider>
      <SignedIn
        opened={opened}
        toggle={toggle}
        close={close}
        pathname={location.pathname}
        signOut={signOutEverywhere}
      />
    </PendingProvider>
  );
}

function SignedIn({
  opened,
  toggle,
  close,
  pathname,
  signOut,
}: {
  opened: boolean;
  toggle: () => void;
  close: () => void;
  pathname: string;
  signOut: () => void;
}) {
  const { session } = useSession();
  const { forMe } = usePendingForMe();
  const pageStart = useRef<HTMLDivElement>(null);
  useRouteFocus(pathname, pageStart);
  if (!session) return null;

  const nav = [
    { to: '/portal', label: 'Portal' },
    { to: '/approvals', label: 'Approvals', badge: forMe.length },
    { to: '/workflows', label: 'Workflows' },
    { to: '/me/identities', label: 'My chat accounts' },
    ...(isAdmin(session)
      ? [
          { to: '/admin/agents', label: 'Agents' },
          { to: '/admin/connectors', label: 'Connectors' },
          { to: '/admin/channels', label: 'Channels' },
          { to: '/admin/mcp-servers', label: 'MCP servers' },
          { to: '/admin/llm-credentials', label: 'LLM credentials' },
          { to: '/admin/hooks', label: 'Org hooks' },
          { to: '/admin/audit', label: 'Audit log' },
          { to: '/admin/evals', label: 'Evals' },
          { to: '/admin/org', label: 'Organisation' },
        ]
      : []),
  ];
  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <div ref={pageStart} tabIndex={-1} className="page-start" />
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Group>
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <Text fw={700} size="xl" component="span">
              Warden
            </Text>
          </Group>
          <Group gap="xs">
            <Text size="sm" data-testid="whoami">
              {session.sub} · {session.org}
              {isAdmin(session) ? ' · admin' : ''}
            </Text>
            <Button variant="subtle" size="xs" onClick={signOut}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" component="nav" aria-label="Main">
        <ScrollArea>
          {nav.map((n) => (
            <NavLink
              key={n.to}
              component={Link}
              to={n.to}
              label={n.label}
              onClick={close}
              active={pathname.startsWith(n.to)}
              rightSection={
                n.badge ? (
                  <Badge size="sm" color="orange" aria-label={`${n.badge} pending`}>
                    {n.badge}
                  </Badge>
                ) : undefined
              }
            />
          ))}
        </ScrollArea>
      </AppShell.Navbar>
      <AppShell.Main id="main" tabIndex={-1}>
        <Suspense fallback={<Loader aria-label="Loading the page" />}>
          <Routes>
            <Route path="/" element={<Navigate to="/portal" replace />} />
            <Route path="/portal" element={<AgentsList />} />
            <Route path="/portal/chat/:agentId/:conversationId?" element={<ChatView />} />
            <Route path="/approvals" element={<Approvals />} />
            <Route path="/approvals/:id" element={<Approvals />} />
            <Route path="/workflows/*" element={<WorkflowsRoutes />} />
            <Route path="/admin/*" element={<AdminRoutes />} />
            <Route path="/me/identities" element={<ChatAccounts />} />
            <Route path="*" element={<NotFound />} />
          </Routes>
        </Suspense>
      </AppShell.Main>
    </AppShell>
  );
}

function NotFound() {
  return (
    <>
      <Title order={1} size="h2">
        Nothing here
      </Title>
      <Text>Pick a page on the left.</Text>
    </>
  );
}
