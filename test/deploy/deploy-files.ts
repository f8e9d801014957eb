/** Readers of the deployment files for test/deploy: a Dockerfile parser and the sources an image's entry points reach. */
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const readRepoFile = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');

export interface Instruction {
  keyword: string;
  args: string;
}
export interface Stage {
  name: string;
  from: string;
  instructions: Instruction[];
}

/** Instructions of a Dockerfile, grouped by stage (continuation lines joined, comments dropped). */
export function parseDockerfile(text: string): Stage[] {
  const logical = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const stages: Stage[] = [];
  for (const line of logical) {
    const [, keyword, args] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const instruction = { keyword: keyword.toUpperCase(), args: args.replace(/\s+/g, ' ') };
    if (instruction.keyword === 'FROM') {
      const [, from, name] = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args) ?? [];
      stages.push({ name: name ?? String(stages.length), from, instructions: [] });
    } else if (stages.length > 0) {
      stages[stages.length - 1].instructions.push(instruction);
    }
  }
  return stages;
}

export const argsOf = (stage: Stage, keyword: string): string[] =>
  stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);

const { compilerOptions } = JSON.parse(readRepoFile('tsconfig.json')) as {
  compilerOptions: { paths: Record<string, [string]> };
};
const IMPORT =
  /^\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;

/** The source file a specifier names (`./x.js` -> `x.ts`, `@warden/y` -> its index), or null for a package. */
function resolveSource(from: string, spec: string): string | null {
  const alias = compilerOptions.paths[spec] as [string] | undefined;
  if (alias) return path.join(ROOT, alias[0]);
  if (!spec.startsWith('.')) return null;
  return path.resolve(path.dirname(from), spec).replace(/\.js$/, '.ts');
}

/**
 * The npm packages the server needs at run time: bare imports of every source file reachable from `entries`
 * (type-only imports are erased by the build and do not count).
 */
export function runtimePackages(entries: string[]): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const queue = entries.map((e) => path.join(ROOT, e));
  for (let file = queue.pop(); file; file = queue.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const spec = match[1] ?? match[2];
      const source = resolveSource(file, spec);
      if (source) queue.push(source);
      else if (!spec.startsWith('node:') && !builtinModules.includes(spec)) {
        packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
      }
    }
  }
  return packages;
}

/**
 * Seconds an instance may need between SIGTERM and exit: its drives' drain (SHUTDOWN_DRAIN_MS) plus room for writing
 * the buffered audit rows, closing the HTTP server and the database pool.
 */
export const stopSeconds = (drainMs: number): number => Math.ceil(drainMs / 1000) + 10;

/** Variables of a compose `environment` / k8s `env`, or of a ConfigMap, that Warden's schema does not know. */
export const unknownNames = (names: Iterable<string>, known: string[]): string[] =>
  [...names].filter((n) => !known.includes(n));
