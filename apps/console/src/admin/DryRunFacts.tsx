import { Code, Stack, Text } from '@mantine/core';
import type { Schemas } from '../api/typed';

type Verdict = Schemas['DryRunVerdictResponse'];

const WORDS: Record<string, string> = {
  initiator: 'the requester',
  agent_owner: "the agent's owner",
  org_members: 'any org member',
  org_admins: 'org admins',
  channel: "the channel's approvers",
};

/** Approver entries in words: `org_admins` → "org admins", `role:finance` → "the finance role". */
export function approverWords(list: string[]): string {
  return list
    .map(
      (e) =>
        WORDS[e] ??
        (e.startsWith('role:')
          ? `the ${e.slice(5)} role`
          : e.startsWith('users:')
            ? e.slice(6).split(',').join(', ')
            : e),
    )
    .join(' or ');
}

/**
 * What a dry-run verdict adds to its outcome:
 * the rule that fired, the approver policy and tier, the args after a rewrite.
 */
export function VerdictFacts({ verdict: v }: { verdict: Verdict }) {
  if (!v.rule && !v.approvers && !v.tier && !v.args_after) return null;
  return (
    <Stack gap={2} mt={4}>
      {v.rule && (
        <Text size="xs">
          <b>Rule:</b> <Code>{v.rule}</Code>
        </Text>
      )}
      {v.approvers && (
        <Text size="xs">
          <b>Approvers:</b> {approverWords(v.approvers)}
        </Text>
      )}
      {v.tier ? (
        <Text size="xs">
          <b>Tier {v.tier.index + 1}:</b> <Code>{v.tier.when}</Code>,{' '}
          {v.tier.approvals === 1 ? '1 approval' : `${v.tier.approvals} approvals`}
        </Text>
      ) : (
        v.approvers && <Text size="xs">No tier applies: 1 approval</Text>
      )}
      {v.args_after && (
        <Text size="xs" component="div">
          <b>Args after:</b>
          <Code block>{JSON.stringify(v.args_after, null, 2)}</Code>
        </Text>
      )}
    </Stack>
  );
}
