import { Button, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { data, http } from '../api/typed';
import { ErrorAlert } from '../ui/ErrorAlert';
import { HeadersField, headersOf, type HeaderRow } from './HeadersField';
import { McpServerCard } from './McpServerCard';

/**
 * MCP servers (streamable HTTP): add one with its auth headers (write-only), see the tools it offers, override them.
 */
export function McpServersAdmin() {
  const queries = useQueryClient();
  const list = useQuery({ queryKey: ['mcp-servers'], queryFn: () => data(http.GET('/api/mcp-servers')) });
  const [name, setName] = useState('');
  const [url, setUrl] = useState('https://');
  const [headers, setHeaders] = useState<HeaderRow[]>([{ name: '', value: '' }]);
  const create = useMutation({
    mutationFn: () => data(http.POST('/api/mcp-servers', { body: { name, url, headers: headersOf(headers) } })),
    onSuccess: (s) => {
      notifications.show({
        color: 'green',
        message: `MCP server ${s.name} added: ${s.tools.length} tools (${s.status})`,
      });
      setName('');
      setUrl('https://');
      setHeaders([{ name: '', value: '' }]);
      void queries.invalidateQueries({ queryKey: ['mcp-servers'] });
    },
  });
  return (
    <Stack maw={960}>
      <Title order={1} size="h2">
        MCP servers
      </Title>
      <ErrorAlert error={list.error} what="The MCP servers could not be loaded" />
      {list.data?.length === 0 && <Text c="dimmed">No MCP servers yet.</Text>}
      {list.data?.map((s) => (
        <McpServerCard key={`${s.id}-${s.updated_at}`} server={s} />
      ))}
      <Title order={3}>New MCP server</Title>
      <Group grow>
        <TextInput
          label="Server name"
          description="Its tools are named <name>__<tool>"
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          required
        />
        <TextInput
          label="Endpoint URL"
          description="Streamable HTTP, e.g. https://mcp.example.com/mcp"
          value={url}
          onChange={(e) => setUrl(e.currentTarget.value)}
          required
        />
      </Group>
      <HeadersField rows={headers} onChange={setHeaders} />
      <Group>
        <Button onClick={() => create.mutate()} disabled={!name || !url} loading={create.isPending}>
          Add MCP server
        </Button>
      </Group>
      <ErrorAlert error={create.error} what="The MCP server was not added" />
    </Stack>
  );
}
