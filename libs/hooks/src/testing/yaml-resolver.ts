import path from 'node:path';
import type { AppConfig } from '@warden/common';
import { HookCatalog } from '../hook-catalog.js';
import { HookResolver } from '../hook-resolver.js';
import { HookPoint, PreToolUseHook, type HookResult } from '../hook.types.js';

const HOOKS_DIR = path.resolve('test/fixtures/hooks');

class Recorder extends PreToolUseHook {
  execute(): HookResult {
    return { sideEffects: ['class hook ran'] };
  }
}

/** A resolver with one class hook (`recorder`) and the YAML fixtures of test/fixtures/hooks. */
export function resolverWithClassHook(): HookResolver {
  const catalog = new HookCatalog();
  catalog.register({
    name: 'recorder',
    point: HookPoint.PreToolUse,
    priority: 10,
    description: 'records',
    timeoutMs: 5000,
    onError: 'block',
    autoAttach: false,
    instance: new Recorder(),
    className: 'Recorder',
  });
  return new HookResolver(catalog, { hooksDir: HOOKS_DIR } as AppConfig);
}
