import { Alert, Anchor, Badge, Blockquote, Code, Text } from '@mantine/core';
import { Link } from 'react-router-dom';

import type { ConfirmationRow } from './Approvals';

/**
 * What an approver reads before deciding, apart from the arguments: who asks and where from, how many approvers are
 * needed, why (a hook's reason, the rule that held, the member's message), whether it was nudged, its model turn.
 */
export function RequestFacts({
  row,
  nameOf,
  turn,
  admin,
}: {
  row: ConfirmationRow;
  nameOf: (id: string | null) => string;
  turn: ConfirmationRow[];
  admin: boolean;
}) {
  return (
    <>
      <Text size="sm">
        Agent <b>{row.agent_name ?? row.agent_id}</b> · requested by {nameOf(row.requested_by)} ·{' '}
        {new Date(row.created_at).toLocaleString()}
        {admin && (
          <>
            {' · '}
            <Anchor component={Link} to={`/admin/runs/${row.run_id}`}>
              open the run
            </Anchor>
          </>
        )}
      </Text>
      {row.approvals_required > 1 && (
        <Text size="sm" c="orange">
          {row.approvals_progress}: {row.approvals_required} distinct approvers needed
        </Text>
      )}
      {row.ask_reason && (
        <Alert color="yellow" title="Why a hook asks">
          {row.ask_reason}
        </Alert>
      )}
      {row.trigger && (
        <Text size="sm" data-testid="approval-trigger">
          Why: the rule <Code>{row.trigger}</Code> holds for these arguments
        </Text>
      )}
      {row.member_message && (
        <Blockquote p="xs" data-testid="member-message" aria-label="The member's message">
          <Text size="sm">{row.member_message}</Text>
        </Blockquote>
      )}
      {(row.escalated_at ?? row.reminded_at) && (
        <Badge color="orange" variant="light" data-testid="nudged">
          {row.escalated_at ? 'escalated' : 'reminder sent'}
        </Badge>
      )}
      {turn.length > 1 && (
        <Badge variant="light">
          call {turn.indexOf(row) + 1} of {turn.length} in one model turn
        </Badge>
      )}
    </>
  );
}
