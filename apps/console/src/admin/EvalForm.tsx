import { Button, Card, Group, Select, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { data, http, type Schemas } from '../api/typed';
import { ErrorAlert } from '../ui/ErrorAlert';

interface CaseDraft {
  input: string;
  expectContains: string;
  expectTool: string;
}
const EMPTY: CaseDraft = { input: '', expectContains: '', expectTool: '' };

/** A case as the API takes it: the message, and what its answer and tool calls must show (blank = not checked). */
function toCase(c: CaseDraft): Schemas['EvalCaseDto'] {
  return {
    input: c.input.trim(),
    ...(c.expectContains.trim() ? { expect_contains: c.expectContains.trim() } : {}),
    ...(c.expectTool.trim() ? { expect_tool_calls: [{ tool: c.expectTool.trim() }] } : {}),
  };
}

/** Starts an eval: an agent, whether reads are live, and its cases as fields (no JSON). */
export function EvalForm({ agents }: { agents: Array<{ value: string; label: string }> }) {
  const [agentId, setAgentId] = useState<string | null>(null);
  const [reads, setReads] = useState<string | null>('simulated');
  const [cases, setCases] = useState<CaseDraft[]>([{ ...EMPTY }]);
  const navigate = useNavigate();
  const queries = useQueryClient();
  const start = useMutation({
    mutationFn: () =>
      data(
        http.POST('/api/evals', {
          body: { agent_id: agentId ?? '', reads: reads === 'live' ? 'live' : 'simulated', cases: cases.map(toCase) },
        }),
      ),
    onSuccess: (r) => {
      void queries.invalidateQueries({ queryKey: ['evals'] });
      void navigate(`/admin/evals/${r.id}`);
    },
  });
  const set = (i: number, patch: Partial<CaseDraft>) =>
    setCases(cases.map((c, j) => (j === i ? { ...c, ...patch } : c)));
  const ready = !!agentId && cases.every((c) => c.input.trim());
  return (
    <Card
      withBorder
      component="form"
      aria-label="New eval"
      onSubmit={(e) => {
        e.preventDefault();
        start.mutate();
      }}
    >
      <Stack gap="sm">
        <Group align="flex-end">
          <Select label="Agent" required data={agents} value={agentId} onChange={setAgentId} searchable />
          <Select
            label="Connector reads"
            data={[
              { value: 'simulated', label: 'Simulated (from fixtures)' },
              { value: 'live', label: 'Live (reads are sent)' },
            ]}
            value={reads}
            onChange={setReads}
            allowDeselect={false}
          />
        </Group>
        {cases.map((c, i) => (
          <Card key={i} withBorder padding="xs" aria-label={`Case ${i + 1}`}>
            <Text size="sm" fw={600}>
              Case {i + 1}
            </Text>
            <Textarea
              label={`Case ${i + 1} message`}
              required
              autosize
              minRows={1}
              value={c.input}
              onChange={(e) => set(i, { input: e.currentTarget.value })}
            />
            <Group grow>
              <TextInput
                label={`Case ${i + 1}: answer contains`}
                value={c.expectContains}
                onChange={(e) => set(i, { expectContains: e.currentTarget.value })}
              />
              <TextInput
                label={`Case ${i + 1}: calls tool`}
                placeholder="e.g. oa__purchase_pay"
                value={c.expectTool}
                onChange={(e) => set(i, { expectTool: e.currentTarget.value })}
              />
            </Group>
            {cases.length > 1 && (
              <Button
                variant="subtle"
                color="red"
                size="compact-sm"
                w="fit-content"
                onClick={() => setCases(cases.filter((_, j) => j !== i))}
              >
                Remove case {i + 1}
              </Button>
            )}
          </Card>
        ))}
        <ErrorAlert error={start.error} what="The eval was not started" />
        <Group>
          <Button variant="default" onClick={() => setCases([...cases, { ...EMPTY }])}>
            Add case
          </Button>
          <Button type="submit" disabled={!ready} loading={start.isPending}>
            Start eval
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}
