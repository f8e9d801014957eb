import { Table, Text } from '@mantine/core';
import { decisiveFirst } from '../ui/JsonBlock';
import { formatValue } from '../ui/format-value';
import { useCountdown } from '../ui/useCountdown';

/** What will run, the decisive fields (amount, id) first, values formatted. */
export function ArgsTable({ args }: { args: Record<string, unknown> }) {
  return (
    <Table withRowBorders={false} verticalSpacing={2} aria-label="Arguments">
      <Table.Tbody>
        {decisiveFirst(args).map(([k, v]) => (
          <Table.Tr key={k}>
            <Table.Td w={140}>
              <Text size="sm" c="dimmed">
                {k}
              </Text>
            </Table.Td>
            <Table.Td>
              <Text size="sm" ff="monospace">
                {formatValue(k, v)}
              </Text>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** How long is left, ticking; the clock time on hover. */
export function Expiry({ at }: { at: string }) {
  const left = useCountdown(at);
  return (
    <Text size="xs" c={left === '0:00' ? 'red' : 'dimmed'} title={`expires at ${new Date(at).toLocaleTimeString()}`}>
      {left === '0:00' ? 'expired' : `expires in ${left}`}
    </Text>
  );
}
