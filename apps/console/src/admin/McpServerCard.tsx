import { Badge, Button, Card, Group, Stack, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { data, http, type Schemas } from '../api/typed';
import { ErrorAlert } from '../ui/ErrorAlert';
import { toastError } from '../ui/errors';
import { DeleteButton } from './DeleteButton';
import { HeadersField, headersOf, originChangeNote, replacingHeaders, type HeaderRow } from './HeadersField';
import { cleanOverrides, McpToolOverrides, overridesInvalid, overridesOf, type Overrides } from './McpToolOverrides';

type Server = Schemas['McpServerResponse'];

/** One MCP server: its status, the tools it offers with the admin's overrides, editing its address and headers. */
export function McpServerCard({ server }: { server: Server }) {
  const queries = useQueryClient();
  const [overrides, setOverrides] = useState<Overrides>(() => overridesOf(server.tool_overrides));
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(server.name);
  const [url, setUrl] = useState(server.url);
  const [headers, setHeaders] = useState<HeaderRow[]>([{ name: '', value: '' }]);
  const refresh = () => queries.invalidateQueries({ queryKey: ['mcp-servers'] });
  const save = useMutation({
    mutationFn: (body: Schemas['McpServerDto']) =>
      data(http.PUT('/api/mcp-servers/{id}', { params: { path: { id: server.id } }, body })),
    onSuccess: (s, body) => {
      notifications.show({
        color: 'green',
        message: body.url === server.url ? `Overrides of ${s.name} saved` : `MCP server ${s.name} saved`,
      });
      setEditing(false);
      void refresh();
    },
  });
  const remove = useMutation({
    mutationFn: () => data(http.DELETE('/api/mcp-servers/{id}', { params: { path: { id: server.id } } })),
    onSuccess: () => refresh(),
    onError: (err) => toastError(`The MCP server ${server.name} was not deleted`, err),
  });
  const note = originChangeNote(server.url, url, server.header_keys, headers);
  const saveOverrides = () =>
    save.mutate({ name: server.name, url: server.url, tool_overrides: cleanOverrides(overrides) });
  const saveServer = () =>
    save.mutate({
      name,
      url,
      tool_overrides: cleanOverrides(overrides),
      ...(replacingHeaders(headers) ? { headers: headersOf(headers) } : {}),
    });
  return (
    <Card withBorder data-testid={`mcp-${server.name}`}>
      <Stack gap="xs">
        <Group justify="space-between">
          <Group gap="xs">
            <Text fw={700}>{server.name}</Text>
            <Badge color={server.status === 'connected' ? 'green' : 'red'}>{server.status}</Badge>
            <Text size="sm" ff="monospace" c="dimmed">
              {server.url}
            </Text>
          </Group>
          <Group gap={4}>
            <Button
              size="xs"
              variant="light"
              aria-label={`Edit MCP server ${server.name}`}
              onClick={() => setEditing(!editing)}
            >
              {editing ? 'Close' : 'Edit'}
            </Button>
            <DeleteButton
              what={`MCP server ${server.name}`}
              loading={remove.isPending}
              onDelete={() => remove.mutate()}
            />
          </Group>
        </Group>
        {server.error && <Text c="red">{server.error}</Text>}
        {editing && (
          <Card withBorder padding="sm" bg="gray.0">
            <Stack gap="xs">
              <TextInput
                label={`Name of ${server.name}`}
                value={name}
                onChange={(e) => setName(e.currentTarget.value)}
              />
              <TextInput
                label={`Endpoint URL of ${server.name}`}
                value={url}
                onChange={(e) => setUrl(e.currentTarget.value)}
              />
              <HeadersField rows={headers} onChange={setHeaders} storedKeys={server.header_keys} note={note} />
              <Group>
                <Button
                  size="xs"
                  onClick={saveServer}
                  disabled={!!note || overridesInvalid(overrides)}
                  loading={save.isPending}
                >
                  Save MCP server {server.name}
                </Button>
              </Group>
            </Stack>
          </Card>
        )}
        <McpToolOverrides server={server} overrides={overrides} onChange={setOverrides} />
        <Group>
          <Button size="xs" onClick={saveOverrides} disabled={overridesInvalid(overrides)} loading={save.isPending}>
            Save overrides of {server.name}
          </Button>
        </Group>
        <ErrorAlert error={save.error} what={`${server.name} was not saved`} />
      </Stack>
    </Card>
  );
}
