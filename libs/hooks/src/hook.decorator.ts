import { applyDecorators, Injectable, SetMetadata } from '@nestjs/common';
import type { HookOptions } from './hook.types.js';

/** Metadata key under which `@Hook()` stores a hook class's options; read by HookExplorer at bootstrap. */
export const HOOK_OPTIONS = 'warden:hook-options';

/**
 * Marks a provider class as a hook. The class must extend PreToolUseHook, PostToolUseHook or SessionStartHook and be
 * listed in some module's `providers`; HookExplorer finds it there (names are unique: a duplicate fails the boot).
 */
export function Hook(options: HookOptions): ClassDecorator {
  return applyDecorators(SetMetadata(HOOK_OPTIONS, options), Injectable());
}
