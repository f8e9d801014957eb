import { Alert, Anchor, Badge, Grid, Group, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { data, http } from '../../api/typed';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { FlowCanvas } from '../designer/FlowCanvas';
import { statusWords } from '../designer/node-kinds';
import { asDefinition } from '../graph';
import { RUN_COLORS } from './RunsList';
import { NodeRunDetails } from './NodeRunDetails';
import { useWorkflowRun } from './useWorkflowRun';

/** A run on the workflow's canvas: each node's state live from the run's stream; click a node for its details. */
export function WorkflowRunView() {
  const { workflowId = '', runId = '' } = useParams();
  const wf = useQuery({
    queryKey: ['workflow', workflowId],
    queryFn: () => data(http.GET('/api/workflows/{id}', { params: { path: { id: workflowId } } })),
  });
  const { run, nodes, status, error, streamError } = useWorkflowRun(runId);
  const [selected, setSelected] = useState<string | null>(null);
  const def = asDefinition(wf.data?.definition);
  const waiting = (def?.nodes ?? []).filter((n) => n.id in nodes && nodes[n.id].status === 'waiting');
  const node = def?.nodes.find((n) => n.id === selected);
  return (
    <Stack>
      <Title order={1} size="h2">
        Run of {wf.data?.name ?? 'workflow'}
      </Title>
      <ErrorAlert error={run.error ?? wf.error} what="The workflow run could not be loaded" />
      <ErrorAlert error={streamError} what="The run's live updates stopped" />
      <Group>
        {status && (
          <Text>
            Status{' '}
            <Badge data-testid="workflow-run-status" color={RUN_COLORS[status] ?? 'gray'} variant="outline" c="dark.7">
              {status}
            </Badge>
          </Text>
        )}
        <Anchor component={Link} to={`/workflows/${workflowId}`} c="blue.9">
          Back to the designer and past runs
        </Anchor>
      </Group>
      {waiting.length > 0 && (
        <Alert color="orange" role="status">
          {waiting.map((n) => `${n.id} ${statusWords(n.type, 'waiting')}`).join(', ')}.{' '}
          <Anchor component={Link} to="/approvals" c="blue.9">
            Open the approvals inbox
          </Anchor>
          .
        </Alert>
      )}
      {error && <Alert color="red">{error}</Alert>}
      {def && (
        <Grid>
          <Grid.Col span={{ base: 12, md: 8 }}>
            <FlowCanvas label="Run canvas" def={def} selected={selected} onSelect={setSelected} states={nodes} />
            <Text size="xs" c="gray.7" mt={4}>
              Click a node, or Tab to it and press Enter, to see its inputs, output, hooks and approvals.
            </Text>
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 4 }}>
            {node ? (
              <NodeRunDetails node={node} state={nodes[node.id]} />
            ) : (
              <Text c="gray.7" size="sm">
                No node selected.
              </Text>
            )}
          </Grid.Col>
        </Grid>
      )}
    </Stack>
  );
}
