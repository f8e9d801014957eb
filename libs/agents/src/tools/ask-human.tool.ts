import { Injectable } from '@nestjs/common';
import { BuiltinTool } from './builtin-tool.js';

/** What a person fills in when the question has no form of its own: one line of text. */
export const DEFAULT_HUMAN_FORM = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };

/**
 * `ask_human`: the agent asks a person (the approvers of its confirmation policy) a question with a form (JSON
 * schema: choices as `enum`, text, numbers). The call goes through the confirmation gate like any gated call — card,
 * inbox, timeout, reminders, escalation, durable across restarts — and the person's answer (validated against the
 * form, given with the decision as `answer`) becomes the call's args and its observation. A rejection is a refusal
 * to answer: the model reads it as a blocked call.
 */
@Injectable()
export class AskHumanTool extends BuiltinTool {
  readonly name = 'ask_human';
  readonly description =
    'Ask a person a question and wait for the answer. ' +
    'Give a form (JSON schema of the answer) to ask for a choice (enum), a number or text.';
  readonly parameters = {
    type: 'object',
    properties: {
      question: { type: 'string', description: 'the question, as the person will read it' },
      form: {
        type: 'object',
        description:
          'JSON schema of the answer, e.g. ' +
          '{"type":"object","properties":{"choice":{"enum":["ship","hold"]}},"required":["choice"]}',
      },
      answer: { description: 'filled in by the person who answers; leave it out' },
    },
    required: ['question'],
  };
  readonly write = false;
  override readonly humanTask = true;

  override requiresConfirmation(): boolean {
    return true;
  }

  execute(args: Record<string, unknown>): Promise<string> {
    // The gate lets the call through only with the person's answer in the args (validated against the form).
    if (args.answer === undefined) return Promise.reject(new Error('the question was not answered'));
    return Promise.resolve(JSON.stringify(args.answer));
  }
}
