import { Alert } from '@mantine/core';
import { Navigate, Route, Routes } from 'react-router-dom';
import { useSession } from '../auth/SessionContext';
import { isAdmin } from '../auth/session';
import { AgentEditor, AgentsAdmin } from './AgentsAdmin';
import { AuditAdmin } from './AuditAdmin';
import { ChannelsAdmin } from './ChannelsAdmin';
import { ConnectorsAdmin } from './ConnectorsAdmin';
import { OrgAdmin } from './OrgAdmin';
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
      <Route path="audit" element={<AuditAdmin />} />
      <Route path="runs/:runId" element={<RunTrace />} />
      <Route path="org" element={<OrgAdmin />} />
      <Route path="*" element={<Navigate to="agents" replace />} />
    </Routes>
  );
}
