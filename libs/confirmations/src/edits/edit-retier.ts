import { Injectable } from '@nestjs/common';
import { ChannelsService } from '@warden/channels';
import { BadInputError } from '@warden/common';
import { requirementOf, type Requirement } from '@warden/policy';
import { approversOf, refusalFor, type ResolvedDecider } from '../approver-check.js';
import { ConfirmationStore, type Settlement } from '../confirmation.store.js';
import type { ConfirmationRequest } from '../confirmation.types.js';
import type { ProposedEdit } from './approval-edit.js';

/** An edit the editor's approval completes (settle it), or one that rebinds the request to a stricter tier. */
export type Retiered =
  | { settles: true; edit: NonNullable<Settlement['edit']> }
  | { settles: false; edit: NonNullable<Settlement['edit']>; requirement: Requirement; editorQualifies: boolean };

/**
 * An edited action re-enters *decide* (docs/authorization.md): the policy the request was asked under is evaluated
 * on the edited args. When the editor alone satisfies the tier they fall in (one approval, and the editor may
 * approve there), the edit settles the request as before; otherwise the request is rebound to the edited args and
 * waits for that tier's approvals — the editor's own counting once if they qualify.
 */
@Injectable()
export class EditRetier {
  constructor(
    private readonly store: ConfirmationStore,
    private readonly channels: ChannelsService,
  ) {}

  async retier(row: ConfirmationRequest, decider: ResolvedDecider, proposed: ProposedEdit): Promise<Retiered> {
    if (!row.policy)
      throw new BadInputError(
        `confirmation ${row.id} was asked before approver policies were recorded, ` +
          `so it cannot be approved with changes`,
      );
    // The channel's list stands in for `approvers` only where it did when the request was made.
    const channelHasList = row.policy.approvers === null && approversOf(row).includes('channel');
    const requirement = requirementOf(row.policy, proposed.args, channelHasList);
    const edit = { ...proposed, tier: requirement.tier, approvers: requirement.approvers };
    const underTier = { ...row, approvers: requirement.approvers, tier: requirement.tier };
    const editorQualifies =
      refusalFor(underTier, decider, 'approve', await this.channels.approverList(row.orgId, row.channelId)) === null;
    if (requirement.approvals === 1 && editorQualifies) return { settles: true, edit };
    return { settles: false, edit, requirement, editorQualifies };
  }

  /** Rebinds the pending request to the edited args and their tier; null when it was no longer open. */
  rebind(row: ConfirmationRequest, r: Extract<Retiered, { settles: false }>): Promise<ConfirmationRequest | null> {
    return this.store.rebind(row.id, r.edit, r.requirement.approvals);
  }
}
