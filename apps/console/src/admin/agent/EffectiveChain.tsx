import { Badge, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { data, http } from '../../api/typed';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { normaliseHooks } from '../HooksEditor';

const ORIGIN_WORDS: Record<string, string> = { org: 'org policy', auto: 'always on', agent: 'this agent' };

/** The org policy's class hook names (GET /api/org/hooks): in force for every agent, locked in the agent editor. */
export function useOrgClassHooks(): string[] {
  const org = useQuery({ queryKey: ['org-hooks'], queryFn: () => data(http.GET('/api/org/hooks')) });
  return org.data ? normaliseHooks(org.data.hooks).class_hooks.map((h) => h.name) : [];
}

/**
 * The hooks this agent's runs go through as saved, in run order per point, each with where it comes from: the org's
 * policy (locked here, changed under Admin › Org hooks), always-on hooks, the agent's own.
 */
export function EffectiveChain({ agentId, name }: { agentId: string; name: string }) {
  const chain = useQuery({
    queryKey: ['effective-hooks', agentId],
    queryFn: () => data(http.GET('/api/agents/{id}/hooks/effective', { params: { path: { id: agentId } } })),
  });
  return (
    <Stack gap="xs">
      <Title order={4}>Effective chain</Title>
      <Text size="xs" c="dimmed">
        As saved, in run order: org policy hooks are in force for every agent and cannot be removed here.
      </Text>
      <ErrorAlert error={chain.error} what="The chain could not be loaded" />
      {chain.data && (
        <Table aria-label={`Effective hooks of ${name}`} layout="fixed">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={40}>#</Table.Th>
              <Table.Th>Hook</Table.Th>
              <Table.Th>Point</Table.Th>
              <Table.Th>From</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {chain.data.hooks.map((h, i) => (
              <Table.Tr key={`${h.point}-${h.name}`}>
                <Table.Td>{i + 1}</Table.Td>
                <Table.Td ff="monospace">{h.name}</Table.Td>
                <Table.Td>{h.point}</Table.Td>
                <Table.Td>
                  <Badge variant="light" color={h.origin === 'org' ? 'grape' : h.origin === 'auto' ? 'gray' : 'blue'}>
                    {ORIGIN_WORDS[h.origin] ?? h.origin}
                  </Badge>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {chain.data?.overridden.map((o) => (
        <Text key={o.name} size="sm" c="orange.9">
          This agent&apos;s {o.name} is replaced by the org policy&apos;s hook of that name.
        </Text>
      ))}
    </Stack>
  );
}
