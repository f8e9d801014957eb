import { BadInputError } from '@warden/common';
import { actionDigest, canonicalJson } from '@warden/hooks';
import type { Settlement } from '../confirmation.store.js';
import type { ConfirmationRequest } from '../confirmation.types.js';
import { schemaProblems } from './args-schema.js';

/** An approver's edit as checked, before the policy re-tiers it (edit-retier.ts). */
export type ProposedEdit = Omit<NonNullable<Settlement['edit']>, 'tier' | 'approvers'>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The schema an edit must satisfy: the action's parameters, closed (`additionalProperties: false`) unless the schema
 * itself allows more — an approver may change what the action names, never add what it does not (`bank: "evil"`).
 */
export function closedForEdits(schema: Record<string, unknown>): Record<string, unknown> {
  if (schema.additionalProperties !== undefined || !isObject(schema.properties)) return schema;
  return { ...schema, additionalProperties: false };
}

/**
 * Checks an approver's edited args before anything is recorded, and returns the settlement's edit (args + rebound
 * digest). Refused with a 400 naming the problem: a rejection with args, a request needing several approvals (the
 * others would have approved other args), a tool without a parameter schema, args the schema refuses.
 * Args equal to the proposed ones are a plain approval.
 */
export function approvalEdit(
  row: ConfirmationRequest,
  decision: 'approve' | 'reject',
  args: unknown,
  by: { userId: string; name: string },
): ProposedEdit | undefined {
  if (args === undefined) return undefined;
  if (decision !== 'approve') throw new BadInputError('args can only be given with decision "approve"');
  if (!isObject(args)) throw new BadInputError('args must be a JSON object');
  if (row.approvalsRequired > 1) {
    throw new BadInputError(
      `confirmation ${row.id} needs ${row.approvalsRequired} distinct approvals, ` +
        `so it cannot be approved with changes; reject it or approve it as it is`,
    );
  }
  if (!row.argsSchema)
    throw new BadInputError(
      `${row.tool} has no parameter schema to check edited args against, so it cannot be approved with changes`,
    );
  const problems = schemaProblems(closedForEdits(row.argsSchema), args);
  if (problems.length)
    throw new BadInputError(`the edited args do not fit ${row.tool}'s parameters: ${problems.join('; ')}`);
  if (canonicalJson(args) === canonicalJson(row.args)) return undefined;
  return { args, argsDigest: actionDigest(row.tool, args), byUserId: by.userId, byName: by.name };
}

/** What the model reads before the observation of a call that ran with the approver's changes. */
export function editNote(row: Pick<ConfirmationRequest, 'args' | 'originalArgs' | 'editedByName'>): string {
  const before = row.originalArgs ?? {};
  const keys = [...new Set([...Object.keys(before), ...Object.keys(row.args)])].sort();
  const changes = keys
    .filter((k) => canonicalJson(before[k]) !== canonicalJson(row.args[k]))
    .map((k) => {
      const was = before[k] === undefined ? '(none)' : JSON.stringify(before[k]);
      const is = row.args[k] === undefined ? '(removed)' : JSON.stringify(row.args[k]);
      return `${k}: ${was} -> ${is}`;
    });
  return (
    `Note: ${row.editedByName ?? 'the approver'} approved this call with changes (${changes.join(', ')}); ` +
    `it ran with ${JSON.stringify(row.args)}.`
  );
}

/**
 * Whether a row's approval covers the call the gate holds (`digest` = the call's tool + args). An edited row covers
 * the call it was asked about (its original args), and binds the edited args only if its digest names exactly them.
 */
export function rowCoversCall(row: ConfirmationRequest, digest: string): boolean {
  const bound = row.argsDigest ?? actionDigest(row.tool, row.args);
  if (!row.originalArgs) return bound === digest;
  return actionDigest(row.tool, row.originalArgs) === digest && bound === actionDigest(row.tool, row.args);
}
