/**
 * CEL's `matches()` runs its regex on JavaScript's backtracking engine inside the CEL library, which cannot be
 * replaced there (its functions are frozen), so Warden's conditions may not call it: a condition is written once by
 * an admin or a workflow author but evaluated on args the model chose. The problem text, or null when the parsed
 * expression (cel-js AST: `{ op, args }` nodes) calls no `matches`.
 */
export function celRegexProblem(ast: unknown): string | null {
  return callsMatches(ast)
    ? 'matches() is not available in Warden conditions (its regular expressions could stall the server); ' +
        'use startsWith, endsWith or contains'
    : null;
}

function callsMatches(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(callsMatches);
  if (typeof node !== 'object' || node === null) return false;
  const { op, args } = node as { op?: unknown; args?: unknown };
  if ((op === 'call' || op === 'rcall') && Array.isArray(args) && args[0] === 'matches') return true;
  return callsMatches(args);
}
