import { Button, Group, PasswordInput, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { data, http } from '../api/typed';
import { toastError } from '../ui/errors';
import { ErrorAlert } from '../ui/ErrorAlert';
import { DeleteButton } from './DeleteButton';
import { LlmCredentialEditor } from './LlmCredentialEditor';

/**
 * LLM credentials: an API key stored for one origin (the model server it may be sent to). The key is write-only: sent
 * once, stored encrypted, never shown again; agents name the credential in their model settings.
 */
export function LlmCredentialsAdmin() {
  const queries = useQueryClient();
  const list = useQuery({ queryKey: ['llm-credentials'], queryFn: () => data(http.GET('/api/llm-credentials')) });
  const [name, setName] = useState('');
  const [origin, setOrigin] = useState('https://');
  const [apiKey, setApiKey] = useState('');
  const [editingId, setEditingId] = useState<string | null>(null);
  const editing = list.data?.find((c) => c.id === editingId);
  const create = useMutation({
    mutationFn: () => data(http.POST('/api/llm-credentials', { body: { name, origin, api_key: apiKey } })),
    onSuccess: (c) => {
      notifications.show({ color: 'green', message: `Credential ${c.name} saved: its key is never shown again.` });
      setName('');
      setApiKey('');
      void queries.invalidateQueries({ queryKey: ['llm-credentials'] });
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => data(http.DELETE('/api/llm-credentials/{id}', { params: { path: { id } } })),
    onSuccess: () => queries.invalidateQueries({ queryKey: ['llm-credentials'] }),
    onError: (err) => toastError('The credential was not deleted', err),
  });
  return (
    <Stack maw={800}>
      <Title order={1} size="h2">
        LLM credentials
      </Title>
      <ErrorAlert error={list.error} what="The credentials could not be loaded" />
      {list.data?.length === 0 && (
        <Text c="dimmed">No LLM credentials yet: agents use the operator&apos;s key variables.</Text>
      )}
      <Table aria-label="LLM credentials">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Origin (the only server its key is sent to)</Table.Th>
            <Table.Th>Stored by</Table.Th>
            <Table.Th />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {list.data?.map((c) => (
            <Table.Tr key={c.id}>
              <Table.Td fw={600}>{c.name}</Table.Td>
              <Table.Td ff="monospace">{c.origin ?? 'none: store the key again with its origin'}</Table.Td>
              <Table.Td>{c.created_by ?? ''}</Table.Td>
              <Table.Td>
                <Group gap={4} wrap="nowrap">
                  <Button
                    size="xs"
                    variant="light"
                    aria-label={`Edit credential ${c.name}`}
                    onClick={() => setEditingId(c.id)}
                  >
                    Edit
                  </Button>
                  <DeleteButton
                    what={`credential ${c.name}`}
                    loading={remove.isPending && remove.variables === c.id}
                    onDelete={() => remove.mutate(c.id)}
                  />
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {editing && <LlmCredentialEditor key={editing.id} credential={editing} onDone={() => setEditingId(null)} />}
      <Title order={3}>New credential</Title>
      <TextInput
        label="Credential name"
        description='Unique in the org, e.g. "openai-prod"'
        value={name}
        onChange={(e) => setName(e.currentTarget.value)}
        required
      />
      <TextInput
        label="Origin"
        description={
          'The model server the key is for, e.g. https://api.openai.com: ' +
          'the key is sent to no other scheme, host or port.'
        }
        value={origin}
        onChange={(e) => setOrigin(e.currentTarget.value)}
        required
      />
      <PasswordInput
        label="API key"
        description="Write-only: stored encrypted and never shown again."
        autoComplete="new-password"
        visibilityToggleButtonProps={{ 'aria-label': 'Reveal the typed key' }}
        value={apiKey}
        onChange={(e) => setApiKey(e.currentTarget.value)}
        required
      />
      <Group>
        <Button onClick={() => create.mutate()} disabled={!name || !apiKey || !origin} loading={create.isPending}>
          Save credential
        </Button>
      </Group>
      <ErrorAlert error={create.error} what="The credential was not saved" />
    </Stack>
  );
}
