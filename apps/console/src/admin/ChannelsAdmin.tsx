import { Button, Group, Select, Stack, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { data, http, type Schemas } from '../api/typed';
import { toastError } from '../ui/errors';
import { ErrorAlert } from '../ui/ErrorAlert';
import { ChannelEditor } from './ChannelEditor';
import { DeleteButton } from './DeleteButton';

const TEMPLATES: Record<string, Record<string, string>> = {
  inbox: {},
  feishu: { app_id: '', app_secret: '', chat_id: '', verification_token: '', encrypt_key: '' },
  slack: { bot_token: '', signing_secret: '', channel: '' },
  wecom: { corp_id: '', corp_secret: '', agent_id: '', token: '', encoding_aes_key: '', to_user: '' },
};

/**
 * Approval channels: create, edit and delete one (secrets are write-only: sent once, never shown again);
 * send a test card.
 */
export function ChannelsAdmin() {
  const queries = useQueryClient();
  const list = useQuery({ queryKey: ['channels'], queryFn: () => data(http.GET('/api/channels')) });
  const [type, setType] = useState('feishu');
  const [name, setName] = useState('');
  const [configText, setConfigText] = useState(JSON.stringify(TEMPLATES.feishu, null, 2));
  const [editingId, setEditingId] = useState<string | null>(null);
  const editing = list.data?.find((c) => c.id === editingId);
  let config: Record<string, unknown> | null = null;
  try {
    config = JSON.parse(configText) as Record<string, unknown> | null;
  } catch {
    config = null;
  }
  const create = useMutation({
    mutationFn: () =>
      data(
        http.POST('/api/channels', {
          body: { type: type as Schemas['CreateChannelDto']['type'], name, config: config ?? {} },
        }),
      ),
    onSuccess: (c) => {
      notifications.show({
        color: 'green',
        message: `Channel ${c.name} created${c.callback_url ? `; callback URL ${c.callback_url}` : ''}`,
      });
      setConfigText(JSON.stringify(TEMPLATES[type], null, 2));
      void queries.invalidateQueries({ queryKey: ['channels'] });
    },
    onError: (err) => toastError('The channel was not created', err),
  });
  const remove = useMutation({
    mutationFn: (id: string) => data(http.DELETE('/api/channels/{id}', { params: { path: { id } } })),
    onSuccess: (_, id) => {
      if (id === editingId) setEditingId(null);
      void queries.invalidateQueries({ queryKey: ['channels'] });
    },
    onError: (err) => toastError('The channel was not deleted', err),
  });
  const test = useMutation({
    mutationFn: (id: string) => data(http.POST('/api/channels/{id}/test', { params: { path: { id } } })),
    onSuccess: (r) =>
      r.ok
        ? notifications.show({
            color: 'green',
            message: 'Test card sent: look for it in the chat (its buttons decide nothing).',
          })
        : notifications.show({
            color: 'red',
            title: 'The test card was not delivered',
            message:
              `${r.error ?? 'the platform refused it'}. Check the channel's credentials and chat id, ` +
              'then create the channel again with the right ones.',
          }),
    onError: (err) => toastError('The test card was not delivered', err),
  });
  return (
    <Stack maw={800}>
      <Title order={1} size="h2">
        Channels
      </Title>
      {list.data?.length === 0 && <Text c="dimmed">No channels: approval cards go to the built-in inbox.</Text>}
      <Table aria-label="Channels">
        <Table.Tbody>
          {list.data?.map((c) => (
            <Table.Tr key={c.id}>
              <Table.Td fw={600}>{c.name}</Table.Td>
              <Table.Td>{c.type}</Table.Td>
              <Table.Td>
                <Text size="xs" ff="monospace">
                  {c.callback_url}
                </Text>
              </Table.Td>
              <Table.Td>
                <Button
                  size="xs"
                  variant="light"
                  aria-label={`Send a test card to ${c.name}`}
                  loading={test.isPending && test.variables === c.id}
                  onClick={() => test.mutate(c.id)}
                >
                  Send test card
                </Button>
              </Table.Td>
              <Table.Td>
                <Group gap={4} wrap="nowrap">
                  <Button
                    size="xs"
                    variant="light"
                    aria-label={`Edit channel ${c.name}`}
                    onClick={() => setEditingId(c.id)}
                  >
                    Edit
                  </Button>
                  <DeleteButton
                    what={`channel ${c.name}`}
                    loading={remove.isPending && remove.variables === c.id}
                    onDelete={() => remove.mutate(c.id)}
                  />
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {editing && (
        <ChannelEditor
          key={`${editing.id}-${editing.updated_at}`}
          channel={editing}
          onDone={() => setEditingId(null)}
        />
      )}
      <Title order={3}>New channel</Title>
      <Group grow>
        <Select
          label="Type"
          data={Object.keys(TEMPLATES)}
          value={type}
          allowDeselect={false}
          onChange={(v) => {
            setType(v ?? 'inbox');
            setConfigText(JSON.stringify(TEMPLATES[v ?? 'inbox'], null, 2));
          }}
        />
        <TextInput label="Channel name" value={name} onChange={(e) => setName(e.currentTarget.value)} required />
      </Group>
      <Textarea
        label="Config (JSON)"
        description="Secrets are stored encrypted and never shown again."
        autosize
        minRows={4}
        styles={{ input: { fontFamily: 'monospace' } }}
        value={configText}
        onChange={(e) => setConfigText(e.currentTarget.value)}
        error={config ? undefined : 'Not valid JSON'}
      />
      <Group>
        <Button onClick={() => create.mutate()} disabled={!config || !name} loading={create.isPending}>
          Create channel
        </Button>
      </Group>
      <ErrorAlert error={create.error} what="The channel was not created" />
    </Stack>
  );
}
