import { Anchor, Badge, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { Link } from 'react-router-dom';
import type { RunStreamEvent } from '../../api/sse';
import { useSession } from '../../auth/SessionContext';
import { isAdmin } from '../../auth/session';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { JsonBlock } from '../../ui/JsonBlock';
import type { WfNode } from '../graph';
import { kindOf, statusWords } from '../designer/node-kinds';
import { useAgentRunEvents } from './useAgentRunEvents';
import type { NodeState } from './useWorkflowRun';

/** One node of a run: its state, what it was given, what it gave, its hooks' outcomes and its approvals. */
export function NodeRunDetails({ node, state }: { node: WfNode; state: NodeState | undefined }) {
  const { session } = useSession();
  const { events, error } = useAgentRunEvents(state?.agent_run_id);
  const typed = events as unknown as RunStreamEvent[];
  const calls = typed.flatMap((e) => (e.event === 'tool_call' ? [e.data] : []));
  const hooks = typed.flatMap((e) => (e.event === 'hook' ? [e.data] : []));
  const pending = typed.flatMap((e) => (e.event === 'confirmation_pending' ? [e.data] : []));
  const resolved = new Map(
    typed.flatMap((e) => (e.event === 'confirmation_resolved' ? [[e.data.confirmation_id, e.data] as const] : [])),
  );
  const given =
    node.type === 'agent'
      ? { prompt: node.prompt }
      : calls.length
        ? calls.map((c) => ({ tool: c.tool, args: c.args }))
        : null;
  return (
    <Paper withBorder p="sm" component="section" aria-label={`Run of node ${node.id}`}>
      <Stack gap="xs">
        <Title order={3} size="h4">
          {kindOf(node.type).label} node {node.id}
        </Title>
        <Text size="sm">
          State: <Badge variant="light">{statusWords(node.type, state?.status) || 'pending'}</Badge>
        </Text>
        {state?.error && <Text c="red.8">{state.error}</Text>}
        <ErrorAlert error={error} what="The node's run could not be read" />
        <Text fw={600} size="sm">
          Inputs
        </Text>
        {given ? <JsonBlock value={given} label="Inputs" /> : <Text size="sm">None yet.</Text>}
        <Text fw={600} size="sm">
          Output
        </Text>
        {state?.output !== undefined ? (
          <JsonBlock value={state.output} label="Output" />
        ) : (
          <Text size="sm">None yet.</Text>
        )}
        <Text fw={600} size="sm">
          Hooks
        </Text>
        {hooks.length === 0 ? (
          <Text size="sm">No hook ran{state?.agent_run_id ? '' : ' (the node has not started a run)'}.</Text>
        ) : (
          <Table aria-label="Hooks" fz="xs">
            <Table.Tbody>
              {hooks.map((h, i) => (
                <Table.Tr key={i}>
                  <Table.Td>{h.point}</Table.Td>
                  <Table.Td ff="monospace">{h.hook}</Table.Td>
                  <Table.Td>{h.outcome}</Table.Td>
                  <Table.Td>{h.duration_ms} ms</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
        <Text fw={600} size="sm">
          Approvals
        </Text>
        {pending.length === 0 ? (
          <Text size="sm">None asked.</Text>
        ) : (
          <Table aria-label="Approvals" fz="xs">
            <Table.Tbody>
              {pending.map((p) => {
                const r = resolved.get(p.confirmation_id);
                return (
                  <Table.Tr key={p.confirmation_id}>
                    <Table.Td ff="monospace">{p.tool}</Table.Td>
                    <Table.Td>{r ? r.status : 'pending'}</Table.Td>
                    <Table.Td>
                      {r ? (
                        (r.responded_by ?? '')
                      ) : (
                        <Anchor component={Link} to={`/approvals/${p.confirmation_id}`}>
                          Open in the inbox
                        </Anchor>
                      )}
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        )}
        {state?.agent_run_id && isAdmin(session) && (
          <Anchor component={Link} to={`/admin/runs/${state.agent_run_id}`} size="sm">
            Full trace of the node&apos;s run
          </Anchor>
        )}
      </Stack>
    </Paper>
  );
}
