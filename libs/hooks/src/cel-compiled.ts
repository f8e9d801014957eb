import type { Environment } from '@marcbachmann/cel-js';
import { celRegexProblem } from '@warden/common';

type Compiled = ReturnType<Environment['parse']>;
/** A parsed expression ready to evaluate, or why it may not be evaluated (a parse error, a regex refused). */
type Entry = { evaluate: Compiled } | { refused: Error };

/** Expressions kept per environment; beyond this the cache starts again (conditions are few, calls are many). */
const MAX_ENTRIES = 1000;
const caches = new WeakMap<Environment, Map<string, Entry>>();

/**
 * `expression` parsed once per environment and kept: the args conditions (`requires_confirmation_when`, tiers'
 * `when`, standing approvals' bounds) are evaluated on every call, and parsing dominated that cost (a replay decides
 * 100 000 calls with the same few conditions). Throws, like parsing would, for an expression that may not run.
 */
export function compiledCel(env: Environment, expression: string): Compiled {
  let cache = caches.get(env);
  if (!cache) {
    cache = new Map();
    caches.set(env, cache);
  }
  let entry = cache.get(expression);
  if (!entry) {
    entry = compile(env, expression);
    if (cache.size >= MAX_ENTRIES) cache.clear();
    cache.set(expression, entry);
  }
  if ('refused' in entry) throw entry.refused;
  return entry.evaluate;
}

function compile(env: Environment, expression: string): Entry {
  try {
    const evaluate = env.parse(expression);
    // A condition calling matches() (saved before it was refused) is never run.
    const regex = celRegexProblem(evaluate.ast);
    return regex ? { refused: new Error(regex) } : { evaluate };
  } catch (err) {
    return { refused: err instanceof Error ? err : new Error(String(err)) };
  }
}
