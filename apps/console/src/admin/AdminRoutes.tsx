import { Alert, Anchor } from '@mantine/core';
import { Link, Route, Routes, useLocation } from 'react-router-dom';
import { useSession } from '../auth/SessionContext';
import { isAdmin } from '../auth/session';
import { AgentEditor, AgentsAdmin } from './AgentsAdmin';
import { AuditAdmin } from './AuditAdmin';
import { ChannelsAdmin } from './ChannelsAdmin';
import { ConnectorsAdmin } from './ConnectorsAdmin';
import { EvalDetail } from './EvalDetail';
import { EvalsAdmin } from './EvalsAdmin';
import { LlmCredentialsAdmin } from './LlmCredentialsAdmin';
import { McpServersAdmin } from './McpServersAdmin';
import { OrgAdmin } from './OrgAdmin';
import { OrgHooksAdmin } from './OrgHooksAdmin';
import { RunTrace } from './RunTrace';

export function AdminRoutes() {
  const { session } = useSession();
  if (!isAdmin(session)) return <Alert color="orange">Only admins of the organisation see this page. Ask an admin for the role.</Alert>;
  return (
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
  );
}

/** An unknown admin address says so and offers the admin pages (a relative redirect here once grew the path forever). */
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
