import { BadInputError } from '@warden/common';
import type { ConfirmationRequest } from '../confirmation.types.js';

/** Marks a request's stored schema as a question to a person (ask_human, a workflow HUMAN node). */
export const HUMAN_TASK_MARK = 'x-warden-human-task';
const DEFAULT_FORM = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The schema a human task's row stores: the tool's parameters with `answer` required and shaped by the question's
 * form, so answering is "approve with changes" where the change is the answer — validated, bound by the digest,
 * and durable like any approval.
 */
export function humanTaskSchema(
  params: Record<string, unknown> | undefined,
  args: Record<string, unknown>,
): Record<string, unknown> {
  const properties = isObject(params?.properties) ? params.properties : {};
  const required = Array.isArray(params?.required) ? (params.required as string[]) : [];
  return {
    type: 'object',
    properties: { ...properties, answer: isObject(args.form) ? args.form : DEFAULT_FORM },
    required: [...new Set([...required, 'answer'])],
    [HUMAN_TASK_MARK]: true,
  };
}

export const isHumanTask = (row: Pick<ConfirmationRequest, 'argsSchema'>): boolean =>
  row.argsSchema?.[HUMAN_TASK_MARK] === true;

/** The args a decision on a human task runs with: the question's args plus the answer (required to approve). */
export function answeredArgs(
  row: ConfirmationRequest,
  decision: 'approve' | 'reject',
  answer: unknown,
  args: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (!isHumanTask(row)) {
    if (answer !== undefined)
      throw new BadInputError(`confirmation ${row.id} is not a question; answer is only for ask_human and HUMAN nodes`);
    return args;
  }
  if (decision === 'reject') return args;
  if (answer === undefined && args?.answer === undefined)
    throw new BadInputError(
      `confirmation ${row.id} is a question: approve it with an answer (the form is args_schema.properties.answer)`,
    );
  return { ...row.args, ...(args ?? {}), ...(answer !== undefined ? { answer } : {}) };
}
