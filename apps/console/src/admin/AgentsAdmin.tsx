import { Alert, Button, Grid, Group, List, Stack, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { ApiError } from '../api/client';
import { data, http } from '../api/typed';
import { DryRunPanel } from './DryRunPanel';
import { HooksEditor, normaliseHooks, type HooksValue } from './HooksEditor';
import { ErrorAlert } from '../ui/ErrorAlert';

const NEW_CONFIG = {
  model: { provider: 'openai', base_url: 'https://api.openai.com/v1', model: 'gpt-4o-mini', api_key_env: 'WARDEN_LLM_KEY_OPENAI' },
  tools: [],
  max_iterations: 10,
};

export function AgentsAdmin() {
  const agents = useQuery({ queryKey: ['agents'], queryFn: () => data(http.GET('/api/agents')) });
  return (
    <Stack maw={900}>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Agents
        </Title>
        <Button component={Link} to="/admin/agents/new">
          New agent
        </Button>
      </Group>
      <ErrorAlert error={agents.error} what="Agents could not be loaded" />
      {agents.data?.length === 0 && <Text c="dimmed">No agents yet: create one.</Text>}
      <Table aria-label="Agents">
        <Table.Tbody>
          {agents.data?.map((a) => (
            <Table.Tr key={a.id}>
              <Table.Td fw={600}>{a.name}</Table.Td>
              <Table.Td>{(a.model_config_json.model as { model?: string } | null | undefined)?.model ?? ''}</Table.Td>
              <Table.Td>
                <Button size="xs" variant="light" component={Link} to={`/admin/agents/${a.id}`} aria-label={`Edit ${a.name}`}>
                  Edit
                </Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

/** Create or edit one agent: name, instructions, model settings and tools (JSON), the hooks editor, a dry run. */
export function AgentEditor() {
  const { agentId = 'new' } = useParams();
  const isNew = agentId === 'new';
  const navigate = useNavigate();
  const queries = useQueryClient();
  const agent = useQuery({
    queryKey: ['agent', agentId],
    queryFn: () => data(http.GET('/api/agents/{id}', { params: { path: { id: agentId } } })),
    enabled: !isNew,
  });
  const [name, setName] = useState('');
  const [instructions, setInstructions] = useState('');
  const [configText, setConfigText] = useState(JSON.stringify(NEW_CONFIG, null, 2));
  const [hooks, setHooks] = useState<HooksValue>({ class_hooks: [] });
  const [problems, setProblems] = useState<string[]>([]);

  useEffect(() => {
    if (!agent.data) return;
    const { hooks: h, ...rest } = agent.data.model_config_json;
    setName(agent.data.name);
    setInstructions(agent.data.instructions);
    setConfigText(JSON.stringify(rest, null, 2));
    setHooks(normaliseHooks(h));
  }, [agent.data]);

  let config: Record<string, unknown> | null = null;
  try {
    config = JSON.parse(configText) as Record<string, unknown> | null;
  } catch {
    config = null;
  }
  const save = useMutation({
    mutationFn: () => {
      const body = { name, instructions, model_config_json: { ...config, hooks } };
      return isNew
        ? data(http.POST('/api/agents', { body }))
        : data(http.PUT('/api/agents/{id}', { params: { path: { id: agentId } }, body }));
    },
    onSuccess: (a) => {
      setProblems([]);
      notifications.show({ color: 'green', message: `Saved ${a.name}` });
      void queries.invalidateQueries({ queryKey: ['agents'] });
      void queries.invalidateQueries({ queryKey: ['agent', a.id] });
      if (isNew) void navigate(`/admin/agents/${a.id}`, { replace: true });
    },
    onError: (err) => setProblems(err instanceof ApiError && err.problems.length ? err.problems : [err.message]),
  });

  return (
    <Stack>
      <Title order={1} size="h2">
        {isNew ? 'New agent' : `Agent ${agent.data?.name ?? ''}`}
      </Title>
      <Grid>
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Stack>
            <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} required />
            <Textarea
              label="Instructions"
              autosize
              minRows={2}
              value={instructions}
              onChange={(e) => setInstructions(e.currentTarget.value)}
            />
            <Textarea
              label="Model settings and tools (JSON)"
              description="model, tools, delegates, max_iterations, confirmation, …"
              autosize
              minRows={6}
              styles={{ input: { fontFamily: 'monospace' } }}
              value={configText}
              onChange={(e) => setConfigText(e.currentTarget.value)}
              error={config ? undefined : 'Not valid JSON'}
            />
            <HooksEditor value={hooks} onChange={setHooks} />
            {problems.length > 0 && (
              <Alert color="red" role="alert" title="Not saved">
                <List size="sm">
                  {problems.map((p) => (
                    <List.Item key={p}>{p}</List.Item>
                  ))}
                </List>
              </Alert>
            )}
            <Group>
              <Button onClick={() => save.mutate()} disabled={!config || !name} loading={save.isPending}>
                Save agent
              </Button>
            </Group>
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <DryRunPanel modelConfig={config} hooks={hooks} />
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
