import { Group, NumberInput, Select, Stack, Switch, TagsInput, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { data, http } from '../../api/typed';
import { approvalAwaited } from '../../ui/approver-words';
import {
  asError,
  isObject,
  numberOr,
  problemsAt,
  section,
  stringList,
  withKey,
  withSectionKey,
  type ConfigJson,
} from './agent-config';
import { APPROVER_KINDS, TiersField } from './TiersField';

const at = (...keys: string[]) => new RegExp(`^model_config_json\\.confirmation\\.(${keys.join('|')})\\b`);

/** The confirmation policy: who approves, self-approval, how long to wait, tiers, reminders and escalation. */
export function PolicyFields({
  config,
  onChange,
  problems,
}: {
  config: ConfigJson;
  onChange: (c: ConfigJson) => void;
  problems: string[];
}) {
  const channels = useQuery({ queryKey: ['channels'], queryFn: () => data(http.GET('/api/channels')) });
  const c = section(config, 'confirmation');
  const set = (key: string, value: unknown) => onChange(withSectionKey(config, 'confirmation', key, value));
  const approvers = stringList(c.approvers);
  const scope = typeof c.approver_scope === 'string' ? c.approver_scope : 'initiator';
  const forbidSelf = c.forbid_self_approval === true;
  const escalateTo = isObject(c.escalate_to) ? c.escalate_to : {};
  const setEscalateTo = (key: string, value: unknown) => {
    const next = withKey(escalateTo, key, value);
    set('escalate_to', Object.keys(next).length ? next : undefined);
  };
  const channelData = (channels.data ?? []).map((ch) => ({ value: ch.id, label: `${ch.name} (${ch.type})` }));
  const words = approvalAwaited({
    approvers,
    approver_scope: scope,
    forbid_self_approval: forbidSelf,
    approvals_required: 1,
    approvals_given: 0,
  });
  return (
    <Stack gap="xs">
      <Title order={4}>Confirmation policy</Title>
      <TagsInput
        label="Approvers"
        description={
          'Who may approve: org_admins, org_members, agent_owner, initiator, channel, ' +
          `role:<name>, users:<sub>,<sub>. Empty: ${scope}.`
        }
        data={APPROVER_KINDS}
        value={approvers}
        onChange={(v) => set('approvers', v)}
        error={asError(problemsAt(problems, at('approvers', 'approver_scope')))}
      />
      <Text size="xs" c="dimmed" data-testid="approver-words">
        Without a tier: {words.replace(' other than you', ', never the requester')}
      </Text>
      <Group grow align="flex-start">
        <Switch
          mt="sm"
          label="Forbid self-approval"
          description="The requester may not approve their own call"
          checked={forbidSelf}
          onChange={(e) => set('forbid_self_approval', e.currentTarget.checked || undefined)}
          error={asError(problemsAt(problems, at('forbid_self_approval')))}
        />
        <NumberInput
          label="Wait for a decision (seconds)"
          min={1}
          value={numberOr(c.timeout_s)}
          placeholder="120"
          onChange={(v) => set('timeout_s', typeof v === 'number' ? v : undefined)}
          error={asError(problemsAt(problems, at('timeout_s')))}
        />
      </Group>
      <Select
        label="Approval channel"
        description="Where the card goes; empty: the org's default channel, else the inbox"
        data={channelData}
        value={typeof c.channel_id === 'string' ? c.channel_id : null}
        onChange={(v) => set('channel_id', v ?? undefined)}
        clearable
        error={asError(problemsAt(problems, at('channel_id')))}
      />
      <TiersField tiers={c.tiers} onChange={(t) => set('tiers', t)} problems={problems} />
      <Text size="sm" fw={500}>
        Reminders and escalation
      </Text>
      <Group grow align="flex-start">
        <NumberInput
          label="Remind after (seconds)"
          min={1}
          value={numberOr(c.remind_after_s)}
          onChange={(v) => set('remind_after_s', typeof v === 'number' ? v : undefined)}
          error={asError(problemsAt(problems, at('remind_after_s')))}
        />
        <NumberInput
          label="Escalate after (seconds)"
          min={1}
          value={numberOr(c.escalate_after_s)}
          onChange={(v) => set('escalate_after_s', typeof v === 'number' ? v : undefined)}
          error={asError(problemsAt(problems, at('escalate_after_s')))}
        />
      </Group>
      <Group grow align="flex-start">
        <TagsInput
          label="Escalate to approvers"
          data={APPROVER_KINDS}
          value={stringList(escalateTo.approvers)}
          onChange={(v) => setEscalateTo('approvers', v)}
          error={asError(problemsAt(problems, at('escalate_to')))}
        />
        <Select
          label="Escalate to channel"
          data={channelData}
          value={typeof escalateTo.channel_id === 'string' ? escalateTo.channel_id : null}
          onChange={(v) => setEscalateTo('channel_id', v ?? undefined)}
          clearable
        />
      </Group>
    </Stack>
  );
}
