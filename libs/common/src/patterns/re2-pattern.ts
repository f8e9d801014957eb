import { RE2JS } from 're2js';

/** What ajv (its `code.regExp` option) and Warden's matchers need of a compiled pattern. */
export interface LinearRegExp {
  test(input: string): boolean;
  /** ajv caches compiled patterns by this text: it must differ for every pattern and flag set. */
  toString(): string;
}

const FLAGS: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, s: RE2JS.DOTALL, m: RE2JS.MULTILINE, u: 0 };

/**
 * Compiles a regular expression written by a model, a member or an admin on RE2 (time linear in the input): a
 * backtracking engine takes seconds per extra character on `^(a+)+$`, freezing the whole server. RE2 has no
 * backreferences or lookaround, so such a pattern is refused here with an error naming it. Unanchored, like
 * `RegExp.prototype.test`. Flags: i, s, m (u is RE2's default).
 */
export function compileLinearRegExp(pattern: string, flags = ''): LinearRegExp {
  let bits = 0;
  for (const f of flags) {
    if (!(f in FLAGS)) throw new Error(`pattern "${pattern}": flag "${f}" is not supported (use i, s or m)`);
    bits |= FLAGS[f];
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(RE2JS.translateRegExp(pattern), bits);
  } catch (err) {
    throw new Error(
      `pattern "${pattern}" cannot be used: ${(err as Error).message} ` +
        `(patterns use RE2 syntax: no backreferences or lookaround)`,
    );
  }
  return { test: (input) => re.test(input), toString: () => `/${pattern}/${flags}` };
}

/** ajv's `code.regExp`: every JSON-schema `pattern` and `patternProperties` key is compiled on RE2. */
export const linearRegExpEngine = Object.assign(
  (pattern: string, flags: string) => compileLinearRegExp(pattern, flags),
  {
    code: 'compileLinearRegExp',
  },
);
