import { Environment } from '@marcbachmann/cel-js';
import { celRegexProblem } from '@warden/common';
import { compiledCel } from './cel-compiled.js';

/**
 * CEL over a call's `args` (`args.amount > 50000`): connector actions' `requires_confirmation_when`, and the bound of
 * a standing approval (`args.amount <= 70000`). One environment, so both are checked and evaluated the same way.
 */
const environment = new Environment({ unlistedVariablesAreDyn: false }).registerVariable('args', 'map');

/** Returns a problem description, or null when the expression parses and type-checks. */
export function checkConfirmationCondition(expression: string): string | null {
  try {
    const checked = environment.check(expression);
    if (!checked.valid) return checked.error?.message.split('\n')[0] ?? 'invalid expression';
    const regex = celRegexProblem(environment.parse(expression).ast);
    if (regex) return regex;
    const type = checked.type;
    if (type && type !== 'bool' && type !== 'dyn') return `must evaluate to a bool, not ${type}`;
    return null;
  } catch (err) {
    return (err as Error).message.split('\n')[0];
  }
}

/**
 * Whether the call needs a human approval. An expression that cannot be evaluated for these args (a missing key,
 * a wrong type) or does not yield a bool counts as "yes": fail closed.
 */
export function evaluateConfirmationCondition(expression: string, args: Record<string, unknown>): boolean {
  try {
    return evaluate(expression, args) !== false;
  } catch {
    return true;
  }
}

/**
 * Whether a call is inside a bound (a standing approval's `when`): only a plain `true` counts. An expression that
 * cannot be evaluated for these args counts as "outside": fail closed (the call asks a human again).
 */
export function argsWithinBound(expression: string, args: Record<string, unknown>): boolean {
  try {
    return evaluate(expression, args) === true;
  } catch {
    return false;
  }
}

/** Evaluates; a condition calling matches() (saved before it was refused) throws, so the callers fail closed. */
function evaluate(expression: string, args: Record<string, unknown>): unknown {
  return compiledCel(environment, expression)({ args });
}
