import { compileLinearRegExp, globMatches } from '@warden/common';

/** Decides which tool names a YAML hook applies to. */
export type ToolMatcher = (toolName: string) => boolean;

const matchAll: ToolMatcher = () => true;

/**
 * Compiles a `matcher`: omitted, "" or "*" = every tool; `/regex/` (optionally `/regex/i`) = an unanchored regular
 * expression; otherwise globs (`*`, `?`) separated by `|`, each matching the whole tool name (`oa__delete_*|crm__*`).
 * Throws with a readable message when the regex does not compile.
 */
export function compileToolMatcher(matcher: string | undefined): ToolMatcher {
  if (matcher === undefined || matcher === '' || matcher === '*') return matchAll;
  const regexForm = /^\/(.+)\/([a-z]*)$/s.exec(matcher);
  if (regexForm) {
    // RE2 runs in time linear in the tool name: a hook author's regex cannot freeze the event loop
    // (backtracking engines take seconds on `(a+)+$`). Backreferences and lookaround are refused at compile time.
    if (regexForm[2].includes('u'))
      throw new Error(`invalid regular expression ${matcher}: flag "u" is not supported (use i, s or m)`);
    let re: ReturnType<typeof compileLinearRegExp>;
    try {
      re = compileLinearRegExp(regexForm[1], regexForm[2]);
    } catch (err) {
      throw new Error(`invalid regular expression ${matcher}: ${(err as Error).message}`);
    }
    return (tool) => re.test(tool);
  }
  // Globs are matched by a walk without backtracking, not by a regex built from them (`a*a*a*b` would backtrack).
  const globs = matcher
    .split('|')
    .map((g) => g.trim())
    .filter(Boolean);
  return (tool) => globs.some((glob) => globMatches(glob, tool));
}
