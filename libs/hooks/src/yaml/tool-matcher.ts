/** Decides which tool names a YAML hook applies to. */
export type ToolMatcher = (toolName: string) => boolean;

const matchAll: ToolMatcher = () => true;

function globToRegExp(glob: string): RegExp {
  const body = glob.split('').map((ch) => (ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[\\^$.+()[\]{}|/]/g, '\\$&'))).join('');
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
    let re: RegExp;
    try {
      re = new RegExp(regexForm[1]!, regexForm[2]);
    } catch (err) {
      throw new Error(`invalid regular expression ${matcher}: ${(err as Error).message}`);
    }
    return (tool) => re.test(tool);
  }
  const globs = matcher.split('|').map((g) => g.trim()).filter(Boolean).map(globToRegExp);
  return (tool) => globs.some((re) => re.test(tool));
}
