import { RE2JS } from 're2js';

/** Decides which tool names a YAML hook applies to. */
export type ToolMatcher = (toolName: string) => boolean;

const matchAll: ToolMatcher = () => true;
const RE2_FLAGS: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, s: RE2JS.DOTALL, m: RE2JS.MULTILINE };

function globToRegExp(glob: string): RegExp {
  const body = glob
    .split('')
    .map((ch) => (ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[\\^$.+()[\]{}|/]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`);
}

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
    let flags = 0;
    for (const f of regexForm[2]) {
      if (!(f in RE2_FLAGS)) throw new Error(`invalid regular expression ${matcher}: flag "${f}" is not supported (use i, s or m)`);
      flags |= RE2_FLAGS[f];
    }
    let re: RE2JS;
    try {
      re = RE2JS.compile(RE2JS.translateRegExp(regexForm[1]), flags);
    } catch (err) {
      throw new Error(
        `invalid regular expression ${matcher}: ${(err as Error).message} (matchers use RE2 syntax: no backreferences or lookaround)`,
      );
    }
    return (tool) => re.test(tool);
  }
  const globs = matcher
    .split('|')
    .map((g) => g.trim())
    .filter(Boolean)
    .map(globToRegExp);
  return (tool) => globs.some((re) => re.test(tool));
}
