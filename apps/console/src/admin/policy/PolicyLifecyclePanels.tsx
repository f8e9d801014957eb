import { Card, Stack, Tabs, Title } from '@mantine/core';
import { HistoryPanel } from './HistoryPanel';
import { ReplayPanel } from './ReplayPanel';
import { ShadowPanel } from './ShadowPanel';
import { TestsPanel } from './TestsPanel';
import type { PolicyConfig, PolicySubject } from './policy-api';

/**
 * Changing a policy safely, beside its editor: its history (versions, diff, rollback), the edited policy as a shadow,
 * a replay of the edited policy over recorded calls, and the policy's tests. `candidate` is the policy as edited.
 */
export function PolicyLifecyclePanels(props: {
  subject: PolicySubject;
  candidate: PolicyConfig;
  onChanged: () => void;
}) {
  return (
    <Card withBorder component="section" aria-label="Change safely" data-testid="policy-lifecycle">
      <Stack gap="xs">
        <Title order={3} size="h4">
          Change safely
        </Title>
        <Tabs defaultValue="history" keepMounted={false}>
          <Tabs.List>
            <Tabs.Tab value="history">History</Tabs.Tab>
            <Tabs.Tab value="shadow">Shadow</Tabs.Tab>
            <Tabs.Tab value="replay">Replay</Tabs.Tab>
            <Tabs.Tab value="tests">Tests</Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="history" pt="sm">
            <HistoryPanel subject={props.subject} onChanged={props.onChanged} />
          </Tabs.Panel>
          <Tabs.Panel value="shadow" pt="sm">
            <ShadowPanel subject={props.subject} candidate={props.candidate} onChanged={props.onChanged} />
          </Tabs.Panel>
          <Tabs.Panel value="replay" pt="sm">
            <ReplayPanel subject={props.subject} candidate={props.candidate} />
          </Tabs.Panel>
          <Tabs.Panel value="tests" pt="sm">
            <TestsPanel subject={props.subject} candidate={props.candidate} />
          </Tabs.Panel>
        </Tabs>
      </Stack>
    </Card>
  );
}
