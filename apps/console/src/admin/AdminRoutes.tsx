import { Alert, Anchor, Loader } from '@mantine/core';
import { Link, Route, Routes, useLocation } from 'react-router-dom';
import { useSession } from '../auth/SessionContext';
import { isAdmin } from '../auth/session';
import { lazy, Suspense } from 'react';

/** Each admin screen is its own chunk, loaded when opened. */
const screen = <K extends string>(load: () => Promise<Record<K, () => React.JSX.Element | null>>, name: K) =>
  lazy(() => load().then((m) => ({ default: m[name] })));
const AgentsAdmin = screen(() => import('./AgentsAdmin'), 'AgentsAdmin');
const AgentEditor = screen(() => import('./AgentsAdmin'), 'AgentEditor');
const AuditAdmin = screen(() => import('./AuditAdmin'), 'AuditAdmin');
const EvalDetail = screen(() => import('./EvalDetail'), 'EvalDetail');
const EvalsAdmin = screen(() => import('./EvalsAdmin'), 'EvalsAdmin');
const ChannelsAdmin = screen(() => import('./ChannelsAdmin'), 'ChannelsAdmin');
const ConnectorsAdmin = screen(() => import('./ConnectorsAdmin'), 'ConnectorsAdmin');
const LlmCredentialsAdmin = screen(() => import('./LlmCredentialsAdmin'), 'LlmCredentialsAdmin');
const McpServersAdmin = screen(() => import('./McpServersAdmin'), 'McpServersAdmin');
const OrgAdmin = screen(() => import('./OrgAdmin'), 'OrgAdmin');
const OrgHooksAdmin = screen(() => import('./OrgHooksAdmin'), 'OrgHooksAdmin');
const RunTrace = screen(() => import('./RunTrace'), 'RunTrace');

export function AdminRoutes() {
  const { session } = useSession();
  if (!isAdmin(session))
    return <Alert color="orange">Only admins of the organisation see this page. Ask an admin for the role.</Alert>;
  return (
    <Suspense fallback={<Loader aria-label="Loading the page" />}>
      <Routes>
        <Route path="agents" element={<AgentsAdmin />} />
        <Route path="agents/:agentId" element={<AgentEditor />} />
        <Route path="connectors" element={<ConnectorsAdmin />} />
        <Route path="channels" element={<ChannelsAdmin />} />
        <Route path="mcp-servers" element={<McpServersAdmin />} />
        <Route path="llm-credentials" element={<LlmCredentialsAdmin />} />
        <Route path="hooks" element={<OrgHooksAdmin />} />
        <Route path="audit" element={<AuditAdmin />} />
        <Route path="runs/:runId" element={<RunTrace />} />
        <Route path="evals" element={<EvalsAdmin />} />
        <Route path="evals/:evalId" element={<EvalDetail />} />
        <Route path="org" element={<OrgAdmin />} />
        <Route path="*" element={<AdminPageMissing />} />
      </Routes>
    </Suspense>
  );
}

/**
 * An unknown admin address says so and offers the admin pages (a relative redirect here once grew the path forever).
 */
function AdminPageMissing() {
  const { pathname } = useLocation();
  return (
    <Alert color="orange" title="No such admin page">
      There is no admin page at <code>{pathname}</code>. Go to{' '}
      <Anchor component={Link} to="/admin/agents">
        agents
      </Anchor>
      ,{' '}
      <Anchor component={Link} to="/admin/connectors">
        connectors
      </Anchor>{' '}
      or pick a page on the left.
    </Alert>
  );
}
