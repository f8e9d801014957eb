/**
 * Whether `name` matches `glob` as a whole (`*` any run of characters, `?` exactly one, everything else literally).
 * The greedy two-pointer walk only ever returns to the last `*` seen, so it takes at most
 * glob.length × name.length steps — a regex built from the glob (`^a.*a.*a.*b$`) backtracks polynomially or worse.
 */
export function globMatches(glob: string, name: string): boolean {
  return globWalk(glob, name).matched;
}

/** The walk itself, with the number of steps it took (the tests bound it). */
export function globWalk(glob: string, name: string): { matched: boolean; steps: number } {
  let g = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  let steps = 0;
  while (n < name.length) {
    steps++;
    if (g < glob.length && (glob[g] === '?' || (glob[g] !== '*' && glob[g] === name[n]))) {
      g++;
      n++;
    } else if (g < glob.length && glob[g] === '*') {
      star = g++;
      resume = n;
    } else if (star >= 0) {
      g = star + 1;
      n = ++resume;
    } else {
      return { matched: false, steps };
    }
  }
  while (g < glob.length && glob[g] === '*') g++;
  return { matched: g === glob.length, steps };
}
