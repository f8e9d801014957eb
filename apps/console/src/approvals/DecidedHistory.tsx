import { Alert, Badge, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { data, http } from '../api/typed';
import { asText } from '../ui/as-text';
import type { ConfirmationRow } from './Approvals';

/**
 * A link to one request (chat cards carry it) that is no longer pending for me: say what became of it, instead of
 * leaving the reader to guess which of the pending requests with the same text it meant.
 */
export function LinkedRequestOutcome({ id, nameOf }: { id: string; nameOf: (id: string | null) => string }) {
  const row = useQuery({
    queryKey: ['confirmations', 'one', id],
    queryFn: () => data(http.GET('/api/confirmations/{id}', { params: { path: { id } } })),
  });
  if (row.isPending) return null;
  if (row.error) return <Alert color="red">The linked request could not be loaded: {row.error.message}</Alert>;
  const r = row.data;
  const label = `${r.tool} ${asText(r.args.id ?? '')}`.trim();
  if (r.status === 'pending')
    return (
      <Alert color="blue" data-testid="linked-request" title={`The linked request ${label} is pending`}>
        It is not yours to decide (requested by {nameOf(r.requested_by)}); tick "Also show requests others decide" to
        see it.
      </Alert>
    );
  const when = r.responded_at ? ` on ${new Date(r.responded_at).toLocaleString()}` : '';
  const by = r.responded_by ? ` by ${r.responded_by}` : '';
  return (
    <Alert
      color={r.status === 'approved' ? 'green' : 'gray'}
      data-testid="linked-request"
      title={`The linked request ${label} was already ${r.status}${by}${when}`}
    >
      {r.reason ? `Reason: ${r.reason}. ` : ''}Nothing is left to decide on it.
    </Alert>
  );
}

export function DecidedHistory({ rows, nameOf }: { rows: ConfirmationRow[]; nameOf: (id: string | null) => string }) {
  if (rows.length === 0) return <Text c="dimmed">No decisions yet.</Text>;
  return (
    <Table.ScrollContainer minWidth={700}>
      <Table striped aria-label="Decided requests">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Tool</Table.Th>
            <Table.Th>Agent</Table.Th>
            <Table.Th>Requested by</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>By</Table.Th>
            <Table.Th>When</Table.Th>
            <Table.Th>Reason</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((r) => (
            <Table.Tr key={r.id}>
              <Table.Td ff="monospace">
                {r.tool} {asText(r.args.id ?? '')}
              </Table.Td>
              <Table.Td>{r.agent_name}</Table.Td>
              <Table.Td>{nameOf(r.requested_by)}</Table.Td>
              <Table.Td>
                {/* A badge shrinks with its column and cuts the status ("APP…"): it keeps its full width. */}
                <Badge
                  miw="max-content"
                  color={r.status === 'approved' ? 'green' : r.status === 'rejected' ? 'red' : 'gray'}
                >
                  {r.status}
                </Badge>
              </Table.Td>
              <Table.Td>
                {r.responded_by ?? '—'}
                {r.responded_at ? ` via ${r.responded_by_platform ?? 'console / API'}` : ''}
              </Table.Td>
              <Table.Td>{r.responded_at ? new Date(r.responded_at).toLocaleString() : '—'}</Table.Td>
              <Table.Td>
                {r.reason ?? ''}
                {r.original_args ? ` (approved with changes; proposed ${JSON.stringify(r.original_args)})` : ''}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
