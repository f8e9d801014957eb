import { Environment } from '@marcbachmann/cel-js';

// The same CEL library and environment the server checks `requires_confirmation_when` with, so the admin sees the
// server's verdict as they type; the server checks again on save.
const environment = new Environment({ unlistedVariablesAreDyn: false }).registerVariable('args', 'map');

export function celProblem(expression: string): string | null {
  if (!expression.trim()) return null;
  try {
    const checked = environment.check(expression);
    if (!checked.valid) return checked.error?.message.split('\n')[0] ?? 'invalid expression';
    if (checked.type && checked.type !== 'bool' && checked.type !== 'dyn')
      return `must evaluate to a bool, not ${checked.type}`;
    return null;
  } catch (err) {
    return (err as Error).message.split('\n')[0];
  }
}
