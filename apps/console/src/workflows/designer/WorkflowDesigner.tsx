import { Alert, Button, Grid, Group, List, Stack, Tabs, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { ApiError } from '../../api/client';
import { data, http } from '../../api/typed';
import { useSession } from '../../auth/SessionContext';
import { isBuilder } from '../../auth/session';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { asDefinition, type WfDefinition } from '../graph';
import { RunStarter } from '../runs/RunStarter';
import { RunsList } from '../runs/RunsList';
import { AdvancedJson } from './AdvancedJson';
import { FlowCanvas } from './FlowCanvas';
import { addNode, autoLayout, withPositions } from './model';
import { problemsByNode } from './node-kinds';
import { NodePanel } from './NodePanel';
import { Palette } from './Palette';
import { useValidation } from './useValidation';

const EMPTY: WfDefinition = {
  nodes: [{ id: 'start', type: 'start', inputs: [], position: { x: 20, y: 20 } }],
  edges: [],
};
const problemsOf = (err: unknown) =>
  err instanceof ApiError && err.problems.length ? err.problems : [(err as Error).message];

/** One workflow on a canvas: palette, nodes and edges, a side panel per node, checks as drawn, save, run, past runs. */
export function WorkflowDesigner() {
  const { workflowId = 'new' } = useParams();
  const isNew = workflowId === 'new';
  const navigate = useNavigate();
  const queries = useQueryClient();
  const { session } = useSession();
  const canBuild = isBuilder(session);
  const wf = useQuery({
    queryKey: ['workflow', workflowId],
    queryFn: () => data(http.GET('/api/workflows/{id}', { params: { path: { id: workflowId } } })),
    enabled: !isNew,
  });
  const [name, setName] = useState('');
  const [def, setDef] = useState<WfDefinition>(EMPTY);
  const [selected, setSelected] = useState<string | null>(isNew ? 'start' : null);
  const [saveProblems, setSaveProblems] = useState<string[]>([]);
  useEffect(() => {
    const loaded = asDefinition(wf.data?.definition);
    if (wf.data && loaded) {
      setName(wf.data.name);
      setDef(withPositions(loaded));
    }
  }, [wf.data]);
  const { problems, checking } = useValidation(def, canBuild);
  const { byNode, general } = problemsByNode(problems, def);
  const selectedNode = def.nodes.find((n) => n.id === selected);

  const save = useMutation({
    mutationFn: () =>
      isNew
        ? data(http.POST('/api/workflows', { body: { name, definition: def as never } }))
        : data(
            http.PUT('/api/workflows/{id}', {
              params: { path: { id: workflowId } },
              body: { name, definition: def as never },
            }),
          ),
    onSuccess: (w) => {
      setSaveProblems([]);
      notifications.show({ color: 'green', message: `Saved ${w.name}` });
      void queries.invalidateQueries({ queryKey: ['workflows'] });
      void queries.invalidateQueries({ queryKey: ['workflow', w.id] });
      if (isNew) void navigate(`/workflows/${w.id}`, { replace: true });
    },
    onError: (err) => setSaveProblems(problemsOf(err)),
  });
  const add = (type: Parameters<typeof addNode>[1], position?: { x: number; y: number }) => {
    const made = addNode(def, type, position ? { position } : { after: selected });
    setDef(made.def);
    setSelected(made.id);
  };

  return (
    <Stack>
      <Title order={1} size="h2">
        {isNew ? 'New workflow' : (wf.data?.name ?? 'Workflow')}
      </Title>
      <ErrorAlert error={wf.error} what="The workflow could not be loaded" />
      <Group align="flex-end">
        <TextInput
          label="Workflow name"
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          readOnly={!canBuild}
          w={280}
        />
        {canBuild && (
          <>
            <Button color="blue.8" onClick={() => save.mutate()} disabled={!name} loading={save.isPending}>
              Save workflow
            </Button>
            <Button variant="default" onClick={() => setDef(autoLayout(def))}>
              Auto-layout
            </Button>
            <Text size="sm" role="status" data-testid="workflow-check">
              {checking
                ? 'Checking…'
                : problems.length
                  ? `${problems.length} problem${problems.length > 1 ? 's' : ''} to fix`
                  : 'Ready to save'}
            </Text>
          </>
        )}
      </Group>
      {!canBuild && <Text c="gray.7">Read only: admins and designers build workflows.</Text>}
      <Tabs defaultValue="canvas" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="canvas">Canvas</Tabs.Tab>
          <Tabs.Tab value="json">Advanced (JSON)</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="canvas" pt="sm">
          <Grid>
            {canBuild && (
              <Grid.Col span={{ base: 12, md: 2 }}>
                <Palette def={def} selected={selected} onAdd={(t) => add(t)} />
              </Grid.Col>
            )}
            <Grid.Col span={{ base: 12, md: canBuild ? 6 : 12 }}>
              <FlowCanvas
                label="Workflow canvas"
                def={def}
                selected={selected}
                onSelect={setSelected}
                onChange={canBuild ? setDef : undefined}
                onDrop={canBuild ? (type, position) => add(type, position) : undefined}
                problems={byNode}
              />
            </Grid.Col>
            {canBuild && (
              <Grid.Col span={{ base: 12, md: 4 }}>
                {selectedNode ? (
                  <NodePanel
                    // One panel per node: what was chosen but not applied on one node never carries over to another.
                    key={selectedNode.id}
                    def={def}
                    node={selectedNode}
                    problems={byNode.get(selectedNode.id) ?? []}
                    onChange={setDef}
                    onSelect={setSelected}
                  />
                ) : (
                  <Text c="gray.7" size="sm">
                    Select a node (click it, or Tab to it and press Enter) to configure it.
                  </Text>
                )}
              </Grid.Col>
            )}
          </Grid>
        </Tabs.Panel>
        <Tabs.Panel value="json" pt="sm">
          <AdvancedJson def={def} onChange={setDef} readOnly={!canBuild} />
        </Tabs.Panel>
      </Tabs>
      {[...general, ...saveProblems.filter((p) => !problems.includes(p))].length > 0 && (
        <Alert color="red" title="To fix before saving" role="alert">
          <List size="sm">
            {[...new Set([...general, ...saveProblems])].map((p) => (
              <List.Item key={p}>{p}</List.Item>
            ))}
          </List>
        </Alert>
      )}
      {!isNew && wf.data && (
        <Grid>
          <Grid.Col span={{ base: 12, md: 5 }}>
            <RunStarter workflowId={workflowId} def={asDefinition(wf.data.definition) ?? def} />
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 7 }}>
            <RunsList workflowId={workflowId} />
          </Grid.Col>
        </Grid>
      )}
    </Stack>
  );
}
