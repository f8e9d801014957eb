import { Environment } from '@marcbachmann/cel-js';
import { celRegexProblem } from '@warden/common';

/** The variables a YAML hook's `if` may read. */
export interface ConditionInput {
  args: Record<string, unknown>;
  tool: string;
  agent: Record<string, unknown>;
  user: Record<string, unknown>;
}

export type Condition = (input: ConditionInput) => boolean;

const environment = new Environment()
  .registerVariable('args', 'map')
  .registerVariable('tool', 'string')
  .registerVariable('agent', 'map')
  .registerVariable('user', 'map');

const firstLine = (message: string) => message.split('\n')[0].trim();

/**
 * Compiles a CEL `if` over { args, tool, agent, user } (type-checked now, so a typo is a 400 on save, not a surprise
 * at run time). Evaluating it throws when the expression cannot be evaluated for a call (e.g. a missing key:
 * write `has(args.env) && args.env == 'prod'`) — the hook then fails by its on_error policy rather than being skipped.
 */
export function compileCondition(expression: string): Condition {
  let evaluate: ReturnType<Environment['parse']>;
  try {
    evaluate = environment.parse(expression);
  } catch (err) {
    throw new Error(`invalid CEL: ${firstLine((err as Error).message)}`);
  }
  const checked = environment.check(expression);
  if (!checked.valid) throw new Error(`invalid CEL: ${firstLine(checked.error?.message ?? 'type error')}`);
  if (checked.type !== 'bool' && checked.type !== 'dyn')
    throw new Error(`CEL condition must be a bool, not ${checked.type}`);
  const regex = celRegexProblem(evaluate.ast);
  if (regex) throw new Error(`invalid CEL: ${regex}`);
  return (input) => {
    let value: unknown;
    try {
      value = evaluate(input);
    } catch (err) {
      throw new Error(`condition "${expression}" could not be evaluated: ${firstLine((err as Error).message)}`);
    }
    if (typeof value !== 'boolean') throw new Error(`condition "${expression}" returned ${typeof value}, not a bool`);
    return value;
  };
}
