import type { EvalCase, EvalToolCall } from './eval.entity.js';

/** Whether `actual` contains `subset`: every key of an object subset matches deeply; arrays and scalars are equal. */
export function containsSubset(actual: unknown, subset: unknown): boolean {
  if (Array.isArray(subset)) {
    return (
      Array.isArray(actual) && actual.length === subset.length && subset.every((s, i) => containsSubset(actual[i], s))
    );
  }
  if (subset !== null && typeof subset === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    return Object.entries(subset).every(([k, v]) => containsSubset((actual as Record<string, unknown>)[k], v));
  }
  return Object.is(actual, subset);
}

/** Every expectation of a case the run did not meet, one readable line each; empty when the case passed. */
export function unmetExpectations(
  c: EvalCase,
  outcome: { status: string; answer: string | null; error: string | null },
  calls: EvalToolCall[],
): string[] {
  const failures: string[] = [];
  if (outcome.status !== 'completed')
    failures.push(`the run ended ${outcome.status}${outcome.error ? `: ${outcome.error}` : ''}`);
  if (c.expect_contains && !(outcome.answer ?? '').includes(c.expect_contains))
    failures.push(`the answer does not contain "${c.expect_contains}"`);
  for (const expected of c.expect_tool_calls ?? []) {
    const matched = calls.some(
      (call) => call.tool === expected.tool && containsSubset(call.args, expected.args_subset ?? {}),
    );
    if (!matched) {
      const made = calls.filter((call) => call.tool === expected.tool).map((call) => JSON.stringify(call.args));
      const withArgs = expected.args_subset ? ` with args containing ${JSON.stringify(expected.args_subset)}` : '';
      failures.push(`no call of ${expected.tool}${withArgs}` + (made.length ? ` (made: ${made.join(', ')})` : ''));
    }
  }
  return failures;
}
