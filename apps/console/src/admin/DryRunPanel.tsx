import { Button, Card, Stack, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { data, http } from '../api/typed';
import { useHookCatalog, type HooksValue } from './HooksEditor';
import { VerdictFacts } from './DryRunFacts';
import { ErrorAlert } from '../ui/ErrorAlert';

const COLORS: Record<string, string> = {
  allow: 'green.9',
  block: 'red.9',
  rewrite: 'yellow.9',
  would_require_confirmation: 'orange.9',
};

/** What each hook would decide for a sample call, on the config as edited (unsaved); nothing runs or is sent. */
export function DryRunPanel({
  modelConfig,
  hooks,
}: {
  modelConfig: Record<string, unknown> | null;
  hooks: HooksValue;
}) {
  const catalog = useHookCatalog();
  const [tool, setTool] = useState('oa__purchase_pay');
  const [argsText, setArgsText] = useState('{ "id": "PO-1002", "amount": 68000 }');
  let args: Record<string, unknown> | null = null;
  try {
    args = JSON.parse(argsText) as Record<string, unknown> | null;
  } catch {
    args = null;
  }
  const run = useMutation({
    mutationFn: () =>
      data(
        http.POST('/api/hooks/dry-run', {
          body: { model_config_json: { ...modelConfig, hooks }, tool, args: args ?? {} },
        }),
      ),
  });
  const after = hooks.class_hooks.filter((h) => catalog.data?.find((c) => c.name === h.name)?.point === 'PostToolUse');
  return (
    <Card withBorder>
      <Stack gap="xs">
        <Title order={4}>Dry run</Title>
        <TextInput label="Tool" value={tool} onChange={(e) => setTool(e.currentTarget.value)} />
        <Textarea
          label="Arguments (JSON)"
          autosize
          minRows={2}
          styles={{ input: { fontFamily: 'monospace' } }}
          value={argsText}
          onChange={(e) => setArgsText(e.currentTarget.value)}
          error={args ? undefined : 'Not valid JSON'}
        />
        <Button onClick={() => run.mutate()} disabled={!args || !modelConfig} loading={run.isPending}>
          Dry run
        </Button>
        <ErrorAlert error={run.error} what="The dry run failed" />
        {run.data && (
          <Table aria-label="Dry-run verdicts" layout="fixed">
            <Table.Thead>
              <Table.Tr>
                <Table.Th w="40%">Hook</Table.Th>
                <Table.Th>Outcome</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {run.data.map((v, i) => (
                <Table.Tr key={i}>
                  <Table.Td>
                    <Text size="sm" ff="monospace">
                      {v.hook}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {v.point}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" fw={600} c={COLORS[v.outcome] ?? 'gray'}>
                      {v.outcome.replace(/_/g, ' ')}
                    </Text>
                    {v.detail && <Text size="xs">{v.detail}</Text>}
                    <VerdictFacts verdict={v} />
                  </Table.Td>
                </Table.Tr>
              ))}
              {after.map((h) => (
                <Table.Tr key={h.name}>
                  <Table.Td>
                    <Text size="sm" ff="monospace">
                      {h.name}
                    </Text>
                    <Text size="xs" c="dimmed">
                      PostToolUse
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" fw={600} c="gray">
                      after the tool
                    </Text>
                    <Text size="xs">runs on the observation{h.config ? ` with ${JSON.stringify(h.config)}` : ''}</Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
        {run.data && (
          <Text size="xs" c="dimmed">
            PreToolUse hooks were run on the sample call; PostToolUse hooks run only on a real observation.
          </Text>
        )}
      </Stack>
    </Card>
  );
}
