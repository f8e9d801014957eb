import { Alert, Button, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { data, http } from '../../api/typed';
import type { WfDefinition } from '../graph';

/** Starts a run of the saved workflow: one field per run input its start node names. */
export function RunStarter({ workflowId, def }: { workflowId: string; def: WfDefinition }) {
  const navigate = useNavigate();
  const start = def.nodes.find((n) => n.type === 'start');
  const names = Array.isArray(start?.inputs) ? (start.inputs as string[]) : [];
  const [inputs, setInputs] = useState<Record<string, string>>({});
  const run = useMutation({
    mutationFn: () =>
      data(http.POST('/api/workflows/{id}/runs', { params: { path: { id: workflowId } }, body: { inputs } })),
    onSuccess: (r) => navigate(`/workflows/${workflowId}/runs/${r.run_id}`),
  });
  return (
    <Paper withBorder p="sm" component="section" aria-label="Start a run">
      <Stack gap="xs">
        <Title order={3} size="h4">
          Run it
        </Title>
        {names.length === 0 && (
          <Text size="sm" c="gray.7">
            The saved workflow takes no inputs.
          </Text>
        )}
        {names.map((n) => (
          <TextInput
            key={n}
            label={`Input ${n}`}
            value={inputs[n] ?? ''}
            onChange={(e) => setInputs({ ...inputs, [n]: e.currentTarget.value })}
          />
        ))}
        <Button color="blue.8" onClick={() => run.mutate()} loading={run.isPending}>
          Start run
        </Button>
        {run.error && <Alert color="red">{run.error.message}</Alert>}
      </Stack>
    </Paper>
  );
}
