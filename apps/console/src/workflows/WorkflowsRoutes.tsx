import { Alert, Anchor, Badge, Button, Grid, Group, List, Stack, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, Route, Routes, useNavigate, useParams } from 'react-router-dom';
import { ApiError } from '../api/client';
import { data, http } from '../api/typed';
import { useSession } from '../auth/SessionContext';
import { isAdmin } from '../auth/session';
import type { WfDefinition } from './graph';
import { WorkflowGraph } from './WorkflowGraph';
import { ErrorAlert } from '../ui/ErrorAlert';

interface Workflow {
  id: string;
  name: string;
  definition: WfDefinition;
}

const SAMPLE: WfDefinition = {
  nodes: [
    { id: 'start', type: 'start' },
    { id: 'pay', type: 'agent', agent_id: '<agent id>', prompt: 'Pay {{inputs.po}}' },
    { id: 'end', type: 'end' },
  ],
  edges: [
    { from: 'start', to: 'pay' },
    { from: 'pay', to: 'end' },
  ],
};
const parse = (text: string): WfDefinition | null => {
  try {
    return JSON.parse(text) as WfDefinition | null;
  } catch {
    return null;
  }
};
const problemsOf = (err: unknown) => (err instanceof ApiError && err.problems.length ? err.problems : [(err as Error).message]);

function WorkflowsList() {
  const { session } = useSession();
  const list = useQuery({ queryKey: ['workflows'], queryFn: () => data(http.GET('/api/workflows')) as unknown as Promise<Workflow[]> });
  return (
    <Stack maw={800}>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Workflows
        </Title>
        {isAdmin(session) && (
          <Button component={Link} to="/workflows/new">
            New workflow
          </Button>
        )}
      </Group>
      <ErrorAlert error={list.error} what="Workflows could not be loaded" />
      {list.data?.length === 0 && <Text c="dimmed">No workflows yet{isAdmin(session) ? ': create one.' : '. An admin designs them.'}</Text>}
      <Table aria-label="Workflows">
        <Table.Tbody>
          {list.data?.map((w) => (
            <Table.Tr key={w.id}>
              <Table.Td>
                <Anchor component={Link} to={`/workflows/${w.id}`}>
                  {w.name}
                </Anchor>
              </Table.Td>
              <Table.Td>{w.definition.nodes.length} nodes</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

/** One workflow: its graph, the JSON definition (validated on save), and starting a run with inputs. */
function WorkflowEditor() {
  const { workflowId = 'new' } = useParams();
  const isNew = workflowId === 'new';
  const navigate = useNavigate();
  const queries = useQueryClient();
  const { session } = useSession();
  const wf = useQuery({
    queryKey: ['workflow', workflowId],
    queryFn: () => data(http.GET('/api/workflows/{id}', { params: { path: { id: workflowId } } })) as unknown as Promise<Workflow>,
    enabled: !isNew,
  });
  const [name, setName] = useState('');
  const [text, setText] = useState(JSON.stringify(SAMPLE, null, 2));
  const [inputs, setInputs] = useState('{ "po": "PO-1002" }');
  const [problems, setProblems] = useState<string[]>([]);
  useEffect(() => {
    if (wf.data) {
      setName(wf.data.name);
      setText(JSON.stringify(wf.data.definition, null, 2));
    }
  }, [wf.data]);
  const def = parse(text);
  const inputsValue = parse(inputs) as Record<string, unknown> | null;
  const save = useMutation({
    mutationFn: () =>
      isNew
        ? data(http.POST('/api/workflows', { body: { name, definition: def as never } }))
        : data(http.PUT('/api/workflows/{id}', { params: { path: { id: workflowId } }, body: { name, definition: def as never } })),
    onSuccess: (w) => {
      setProblems([]);
      notifications.show({ color: 'green', message: `Saved ${w.name}` });
      void queries.invalidateQueries({ queryKey: ['workflows'] });
      if (isNew) void navigate(`/workflows/${w.id}`, { replace: true });
    },
    onError: (err) => setProblems(problemsOf(err)),
  });
  const start = useMutation({
    mutationFn: () =>
      data(http.POST('/api/workflows/{id}/runs', { params: { path: { id: workflowId } }, body: { inputs: inputsValue ?? {} } })),
    onSuccess: (r) => navigate(`/workflows/${workflowId}/runs/${r.run_id}`),
    onError: (err) => setProblems(problemsOf(err)),
  });
  return (
    <Stack>
      <Title order={1} size="h2">
        {isNew ? 'New workflow' : (wf.data?.name ?? 'Workflow')}
      </Title>
      {def ? <WorkflowGraph def={def} /> : <Text c="dimmed">The graph appears when the JSON is valid.</Text>}
      <Grid>
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Stack>
            <TextInput label="Workflow name" value={name} onChange={(e) => setName(e.currentTarget.value)} readOnly={!isAdmin(session)} />
            <Textarea
              label="Definition (JSON)"
              autosize
              minRows={8}
              styles={{ input: { fontFamily: 'monospace' } }}
              readOnly={!isAdmin(session)}
              value={text}
              onChange={(e) => setText(e.currentTarget.value)}
              error={def ? undefined : 'Not valid JSON'}
            />
            {isAdmin(session) && (
              <Group>
                <Button onClick={() => save.mutate()} disabled={!def || !name} loading={save.isPending}>
                  Save workflow
                </Button>
              </Group>
            )}
            {problems.length > 0 && (
              <Alert color="red" role="alert" title="Not done">
                <List size="sm">
                  {problems.map((p) => (
                    <List.Item key={p}>{p}</List.Item>
                  ))}
                </List>
              </Alert>
            )}
          </Stack>
        </Grid.Col>
        {!isNew && (
          <Grid.Col span={{ base: 12, md: 5 }}>
            <Stack>
              <Textarea
                label="Run inputs (JSON)"
                autosize
                minRows={2}
                styles={{ input: { fontFamily: 'monospace' } }}
                value={inputs}
                onChange={(e) => setInputs(e.currentTarget.value)}
                error={inputsValue ? undefined : 'Not valid JSON'}
              />
              <Group>
                <Button onClick={() => start.mutate()} disabled={!inputsValue} loading={start.isPending}>
                  Start run
                </Button>
              </Group>
            </Stack>
          </Grid.Col>
        )}
      </Grid>
    </Stack>
  );
}

/** A workflow run, live: node states refresh every second until the run ends; a waiting node links to the inbox. */
function WorkflowRunView() {
  const { workflowId = '', runId = '' } = useParams();
  const wf = useQuery({
    queryKey: ['workflow', workflowId],
    queryFn: () => data(http.GET('/api/workflows/{id}', { params: { path: { id: workflowId } } })) as unknown as Promise<Workflow>,
  });
  const run = useQuery({
    queryKey: ['workflow-run', runId],
    queryFn: () => data(http.GET('/api/workflow-runs/{id}', { params: { path: { id: runId } } })),
    refetchInterval: (q) => (['completed', 'failed'].includes(q.state.data?.status ?? '') ? false : 1000),
  });
  const waiting = Object.entries(run.data?.nodes ?? {}).filter(([, s]) => s.status === 'waiting');
  return (
    <Stack>
      <Title order={1} size="h2">
        Run of {wf.data?.name ?? 'workflow'}
      </Title>
      <ErrorAlert error={run.error} what="The workflow run could not be loaded" />
      {run.data && (
        <Text>
          Status <Badge data-testid="workflow-run-status">{run.data.status}</Badge>
        </Text>
      )}
      {wf.data && <WorkflowGraph def={wf.data.definition} states={run.data?.nodes} />}
      {waiting.length > 0 && (
        <Alert color="orange" role="status">
          {waiting.map(([id]) => id).join(', ')} waiting for approval.{' '}
          <Anchor component={Link} to="/approvals">
            Open the approvals inbox
          </Anchor>
          .
        </Alert>
      )}
      {run.data?.error && <Alert color="red">{run.data.error}</Alert>}
      <Table aria-label="Node states">
        <Table.Tbody>
          {Object.entries(run.data?.nodes ?? {}).map(([id, s]) => (
            <Table.Tr key={id}>
              <Table.Td ff="monospace">{id}</Table.Td>
              <Table.Td>{s.status}</Table.Td>
              <Table.Td>
                {s.agent_run_id && (
                  <Anchor component={Link} to={`/admin/runs/${s.agent_run_id}`}>
                    trace
                  </Anchor>
                )}
              </Table.Td>
              <Table.Td>
                <Text size="xs" lineClamp={2}>
                  {s.output === undefined ? '' : typeof s.output === 'string' ? s.output : JSON.stringify(s.output)}
                </Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

export function WorkflowsRoutes() {
  return (
    <Routes>
      <Route index element={<WorkflowsList />} />
      <Route path=":workflowId" element={<WorkflowEditor />} />
      <Route path=":workflowId/runs/:runId" element={<WorkflowRunView />} />
    </Routes>
  );
}
