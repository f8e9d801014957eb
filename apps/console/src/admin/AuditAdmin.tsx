import { Stack, Tabs, Title } from '@mantine/core';
import { AuditTrail } from './AuditTrail';
import { ConnectorCallsLog } from './ConnectorCallsLog';

/** The audit screen: the hash-chained trail (every kind of event, its proof, its export) and the connector call log. */
export function AuditAdmin() {
  return (
    <Stack>
      <Title order={1} size="h2">
        Audit log
      </Title>
      <Tabs defaultValue="trail" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="trail">Audit trail</Tabs.Tab>
          <Tabs.Tab value="calls">Connector calls</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="trail" pt="md">
          <AuditTrail />
        </Tabs.Panel>
        <Tabs.Panel value="calls" pt="md">
          <ConnectorCallsLog />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
