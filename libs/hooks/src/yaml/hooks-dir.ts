import { constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Resolves a command or module path of a YAML hook. Every path is taken relative to HOOKS_DIR (there is no PATH
 * lookup) and must stay inside it after symlinks are followed, so a hook can only run what an operator put there.
 * Throws with a message that names the path when it does not exist, escapes the directory or cannot be run.
 */
export async function resolveInHooksDir(hooksDir: string, file: string, kind: 'command' | 'module'): Promise<string> {
  let root: string;
  try {
    root = await realpath(hooksDir);
  } catch {
    throw new Error(`${kind} "${file}": HOOKS_DIR ${hooksDir} does not exist`);
  }
  const candidate = path.resolve(root, file);
  if (!isInside(root, candidate)) throw new Error(`${kind} "${file}" is outside HOOKS_DIR`);
  let real: string;
  try {
    real = await realpath(candidate);
  } catch {
    throw new Error(`${kind} "${file}" not found in HOOKS_DIR`);
  }
  if (!isInside(root, real)) throw new Error(`${kind} "${file}" resolves outside HOOKS_DIR`);
  if (!(await stat(real)).isFile()) throw new Error(`${kind} "${file}" is not a file`);
  if (kind === 'command') {
    try {
      await access(real, constants.X_OK);
    } catch {
      throw new Error(`command "${file}" is not executable`);
    }
  }
  return real;
}

function isInside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}
