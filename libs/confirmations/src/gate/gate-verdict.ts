import { actionDigest, type HookContext, type HookResult, type PolicyInForce } from '@warden/hooks';
import { editNote } from '../edits/approval-edit.js';
import { isHumanTask } from '../edits/human-task.js';
import { ConfirmationStatus, type ConfirmationRequest } from '../confirmation.types.js';

/** The gate's answer for a call that does not go ahead. */
export const block = (error: string, sideEffects: string[] = []): HookResult => ({ allow: false, error, sideEffects });

export const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The action a row's approval covers (rows from before digests existed: their stored tool + args). */
const boundDigest = (row: ConfirmationRequest): string => row.argsDigest ?? actionDigest(row.tool, row.args);

/**
 * What a decided request means for the call: approved (as asked, with the approver's changes, or answered), rejected
 * or expired (with who or why). An approval carries its digest, the policy in force (`policy`, the gate's settings
 * now) and the row's grants: the runtime sends only if the kernel finds they satisfy that policy on what it sends.
 */
export function verdictOf(
  row: ConfirmationRequest,
  metadata: HookContext['metadata'],
  policy: PolicyInForce,
): HookResult {
  switch (row.status) {
    case ConfirmationStatus.Approved: {
      const approval = {
        confirmationId: row.id,
        argsDigest: boundDigest(row),
        policy,
        grants: row.grants ?? undefined,
      };
      metadata.approvedBy = `${row.respondedByName} (confirmation ${row.id})`;
      if (!row.originalArgs) return { allow: true, sideEffects: [`approved by ${row.respondedByName}`], approval };
      // A question: the answer is the change, and the observation itself (no note).
      if (isHumanTask(row))
        return {
          allow: true,
          modifiedArgs: structuredClone(row.args),
          sideEffects: [`answered by ${row.respondedByName}`],
          approval,
        };
      // Approved with changes: the call runs with exactly the approver's args, and the model is told so.
      return {
        allow: true,
        modifiedArgs: structuredClone(row.args),
        sideEffects: [`approved with changes by ${row.editedByName ?? row.respondedByName}`],
        approval: { ...approval, note: editNote(row), edited: true },
      };
    }
    case ConfirmationStatus.Rejected:
      return block(`rejected by ${row.respondedByName}${row.reason ? `: ${row.reason}` : ''}`);
    case ConfirmationStatus.Expired: {
      if (row.respondedByName === 'timeout') {
        const seconds = Math.round((row.expiresAt.getTime() - row.createdAt.getTime()) / 1000);
        return block(`expired after ${seconds} s`);
      }
      return block(`expired: ${row.reason ?? 'closed without a decision'}`);
    }
    default:
      return block(`confirmation is still ${row.status}`);
  }
}
