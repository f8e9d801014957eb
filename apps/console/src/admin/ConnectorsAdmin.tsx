import { Button, Group, Stack, Table, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { data, http } from '../api/typed';
import { ErrorAlert } from '../ui/ErrorAlert';
import { toastError } from '../ui/errors';
import { ConnectorForm } from './ConnectorForm';
import { DeleteButton } from './DeleteButton';

/** Connectors: the org's HTTP APIs whose actions become tools; created, edited and deleted here. */
export function ConnectorsAdmin() {
  const queries = useQueryClient();
  const list = useQuery({ queryKey: ['connectors'], queryFn: () => data(http.GET('/api/connectors')) });
  const [editingId, setEditingId] = useState<string | null>(null);
  const editing = list.data?.find((c) => c.id === editingId);
  const remove = useMutation({
    mutationFn: (id: string) => data(http.DELETE('/api/connectors/{id}', { params: { path: { id } } })),
    onSuccess: (_, id) => {
      notifications.show({ color: 'green', message: 'Connector deleted: agents no longer have its tools.' });
      if (id === editingId) setEditingId(null);
      void queries.invalidateQueries({ queryKey: ['connectors'] });
    },
    onError: (err) => toastError('The connector was not deleted', err),
  });
  return (
    <Stack maw={800}>
      <Title order={1} size="h2">
        Connectors
      </Title>
      <ErrorAlert error={list.error} what="The connectors could not be loaded" />
      {list.data?.length === 0 && <Text c="dimmed">No connectors yet.</Text>}
      <Table aria-label="Connectors">
        <Table.Tbody>
          {list.data?.map((c) => (
            <Table.Tr key={c.id}>
              <Table.Td fw={600}>{c.name}</Table.Td>
              <Table.Td>{c.base_url}</Table.Td>
              <Table.Td>{c.actions.map((a) => a.name).join(', ')}</Table.Td>
              <Table.Td>{c.header_keys.length ? `headers: ${c.header_keys.join(', ')}` : ''}</Table.Td>
              <Table.Td>
                <Group gap={4} wrap="nowrap">
                  <Button
                    size="xs"
                    variant="light"
                    aria-label={`Edit connector ${c.name}`}
                    onClick={() => setEditingId(c.id)}
                  >
                    Edit
                  </Button>
                  <DeleteButton
                    what={`connector ${c.name}`}
                    loading={remove.isPending && remove.variables === c.id}
                    onDelete={() => remove.mutate(c.id)}
                  />
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {/* One form at a time: its key makes it start from the connector picked (or blank). */}
      <ConnectorForm
        key={editing ? `${editing.id}-${editing.updated_at}` : 'new'}
        existing={editing}
        onDone={() => setEditingId(null)}
      />
    </Stack>
  );
}
