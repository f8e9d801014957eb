import type { ChannelRecord, ChatPlatform, Decision, DecisionOutcome } from '@warden/channels';
import { DomainException } from '@warden/common';
import type { ConfirmationService } from '../confirmation.service.js';
import type { ConfirmationStore } from '../confirmation.store.js';
import { ConfirmationStatus } from '../confirmation.types.js';

/**
 * "Approve all" / "Reject all" on a turn's card: the same decision for every call of the card that is still pending,
 * each through the one decision path (policy, self-approval, first decision wins), each with its own verdict.
 */
export async function decideAllOnCard(
  confirmations: ConfirmationService,
  store: ConfirmationStore,
  input: {
    channel: ChannelRecord;
    confirmationId: string;
    decision: Decision;
    actor: { platform: ChatPlatform; externalId: string };
  },
): Promise<DecisionOutcome> {
  const clicked = await store.findInOrg(input.channel.orgId, input.confirmationId);
  if (!clicked) return { ok: false, message: 'This button does not belong to an approval request.' };
  const rows = clicked.batchKey
    ? (await store.findByRun(clicked.runId)).filter((r) => r.batchKey === clicked.batchKey)
    : [clicked];
  let decided = 0;
  const refusals: string[] = [];
  for (const row of rows.filter((r) => r.status === ConfirmationStatus.Pending)) {
    try {
      await confirmations.decide({
        orgId: row.orgId,
        confirmationId: row.id,
        decision: input.decision,
        actor: { ...input.actor, channelId: input.channel.id },
      });
      decided++;
    } catch (err) {
      if (!(err instanceof DomainException)) throw err;
      refusals.push(err.message);
    }
  }
  const verb = input.decision === 'approve' ? 'Approved' : 'Rejected';
  if (decided === 0) return { ok: false, message: refusals[0] ?? 'Nothing was pending on this card.' };
  const notDecided = refusals.length ? `; ${refusals.length} not decided: ${refusals[0]}` : '';
  return {
    ok: true,
    settled: true,
    message: `${verb} ${decided} call${decided === 1 ? '' : 's'}${notDecided}`,
  };
}
