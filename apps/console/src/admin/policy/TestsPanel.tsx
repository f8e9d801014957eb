import { Badge, Button, Group, List, Stack, Table, Text, Textarea } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { policyApi, subjectKey, type PolicyConfig, type PolicySubject, type TestRun } from './policy-api';

const EXAMPLE = [
  {
    name: 'small payments run',
    tool: 'oa__purchase_pay',
    args: { id: 'PO-1', amount: 10 },
    expect: { decision: 'allow' },
  },
];

function parse(text: string): { cases: PolicyConfig[] | null; error: string | null } {
  try {
    const v: unknown = JSON.parse(text);
    if (!Array.isArray(v)) return { cases: null, error: 'must be a JSON array of test cases' };
    return { cases: v as PolicyConfig[], error: null };
  } catch (err) {
    return { cases: null, error: `Not valid JSON: ${(err as Error).message}` };
  }
}

/**
 * The policy's test cases (edited as JSON), saved with the policy; run against the policy as edited or the live one.
 */
export function TestsPanel({ subject, candidate }: { subject: PolicySubject; candidate: PolicyConfig }) {
  const queries = useQueryClient();
  const stored = useQuery({ queryKey: [...subjectKey(subject), 'tests'], queryFn: () => policyApi.tests(subject) });
  const [edited, setText] = useState<string | null>(null);
  // Until edited, the field shows the saved cases (an example when there are none).
  const text =
    edited ?? (stored.data ? JSON.stringify(stored.data.cases.length ? stored.data.cases : EXAMPLE, null, 2) : null);
  const { cases, error } = parse(text ?? '[]');
  const save = useMutation({
    mutationFn: () => policyApi.saveTests(subject, cases ?? []),
    onSuccess: (r) => {
      notifications.show({ color: 'green', message: `Saved ${r.cases.length} test case(s)` });
      void queries.invalidateQueries({ queryKey: [...subjectKey(subject), 'tests'] });
    },
  });
  const run = useMutation({
    mutationFn: (against: 'edited' | 'live') =>
      policyApi.runTests(subject, { cases: cases ?? [], ...(against === 'edited' ? { config: candidate } : {}) }),
  });
  return (
    <Stack gap="sm">
      <Text size="sm" c="dimmed">
        Each case is a call (tool, args, optional user) and what the policy must decide: allow, ask (optionally how many
        approvals) or deny, and optionally the args as rewritten (null: not rewritten). Saving a policy on which a saved
        case fails is refused.
      </Text>
      {stored.data && (
        <Text size="sm" data-testid="saved-cases">
          {stored.data.cases.length === 1 ? '1 saved test case' : `${stored.data.cases.length} saved test cases`}
        </Text>
      )}
      <Textarea
        label="Test cases (JSON)"
        autosize
        minRows={6}
        styles={{ input: { fontFamily: 'monospace' } }}
        value={text ?? ''}
        onChange={(e) => setText(e.currentTarget.value)}
        error={error ?? undefined}
      />
      <Group>
        <Button size="xs" onClick={() => save.mutate()} disabled={!cases} loading={save.isPending}>
          Save test cases
        </Button>
        <Button
          size="xs"
          variant="default"
          onClick={() => run.mutate('edited')}
          disabled={!cases}
          loading={run.isPending && run.variables === 'edited'}
        >
          Run against the edited policy
        </Button>
        <Button
          size="xs"
          variant="default"
          onClick={() => run.mutate('live')}
          disabled={!cases}
          loading={run.isPending && run.variables === 'live'}
        >
          Run against the live policy
        </Button>
      </Group>
      <ErrorAlert error={save.error} what="The test cases were not saved" />
      <ErrorAlert error={run.error} what="The tests could not run" />
      {run.data && <Results run={run.data} />}
    </Stack>
  );
}

function Results({ run }: { run: TestRun }) {
  return (
    <Stack gap="xs" role="region" aria-label="Test results">
      <Text size="sm" fw={600} c={run.passed ? 'green.9' : 'red.9'}>
        {run.passed ? `All ${run.total} passed` : `${run.failed} of ${run.total} failed`} {`(${run.candidate} policy)`}
      </Text>
      <Table aria-label="Test case results" layout="fixed">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Case</Table.Th>
            <Table.Th w="15%">Result</Table.Th>
            <Table.Th w="15%">Expected</Table.Th>
            <Table.Th w="25%">Got</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {run.results.map((r) => (
            <Table.Tr key={r.name}>
              <Table.Td>
                <Text size="sm">{r.name}</Text>
                {r.failures.length > 0 && (
                  <List size="xs">
                    {r.failures.map((f) => (
                      <List.Item key={f}>{f}</List.Item>
                    ))}
                  </List>
                )}
              </Table.Td>
              <Table.Td>
                <Badge color={r.pass ? 'green.9' : 'red.9'}>{r.pass ? 'pass' : 'fail'}</Badge>
              </Table.Td>
              <Table.Td>{r.expected.decision}</Table.Td>
              <Table.Td>
                <Text size="sm">{r.actual.decision === 'ask' ? `ask (${r.actual.approvals})` : r.actual.decision}</Text>
                {r.actual.rewrite && (
                  <Text size="xs" ff="monospace" style={{ wordBreak: 'break-all' }}>
                    {`rewritten: ${JSON.stringify(r.actual.rewrite)}`}
                  </Text>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}
