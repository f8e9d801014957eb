import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, Reflector } from '@nestjs/core';
import { HookCatalog } from './hook-catalog.js';
import { HOOK_OPTIONS } from './hook.decorator.js';
import { BaseHook, BLOCKING_POINTS, HookPoint, type HookOptions } from './hook.types.js';
import { DEFAULT_HOOK_TIMEOUT_MS } from './hook-registry.js';

const HOOK_NAME = /^[a-z][a-z0-9_-]{0,63}$/;
const POINTS = new Set<string>(Object.values(HookPoint));

/**
 * Finds every provider marked with @Hook (in any module) at bootstrap and fills the HookCatalog — the
 * @nestjs/schedule explorer pattern. A bad declaration (duplicate name, not a hook class, request-scoped) fails
 * the boot: a hook that silently does not exist is a gate that silently does not close.
 */
@Injectable()
export class HookExplorer implements OnModuleInit {
  private readonly logger = new Logger(HookExplorer.name);

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly reflector: Reflector,
    private readonly catalog: HookCatalog,
  ) {}

  onModuleInit(): void {
    for (const wrapper of this.discovery.getProviders()) {
      const metatype = wrapper.metatype;
      if (!metatype || typeof metatype !== 'function' || wrapper.inject) continue;
      const options = this.reflector.get<HookOptions | undefined>(HOOK_OPTIONS, metatype);
      if (!options) continue;
      const className = metatype.name;
      if (!wrapper.isDependencyTreeStatic()) {
        throw new Error(
          `Hook "${options.name}" (${className}) must be a singleton provider: ` +
            `hooks are resolved once per run, not per request`,
        );
      }
      const instance = wrapper.instance as unknown;
      if (!(instance instanceof BaseHook) || !POINTS.has(instance.point)) {
        throw new Error(
          `@Hook "${options.name}" (${className}) must extend the base class of a hook point ` +
            `(PreToolUseHook, PostToolUseHook, SessionStartHook, UserPromptSubmitHook, ...)`,
        );
      }
      if (!HOOK_NAME.test(options.name)) {
        throw new Error(`Hook name "${options.name}" (${className}) must be lower-case letters, digits, "_" or "-"`);
      }
      if (!Number.isFinite(options.priority))
        throw new Error(`Hook "${options.name}" (${className}) needs a numeric priority`);
      this.catalog.register({
        name: options.name,
        point: instance.point,
        priority: options.priority,
        description: options.description,
        configSchema: options.configSchema,
        timeoutMs: options.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS,
        onError:
          options.onError ??
          (BLOCKING_POINTS.has(instance.point) && instance.point !== HookPoint.Stop ? 'block' : 'allow'),
        autoAttach: options.autoAttach ?? false,
        runsLast: options.runsLast ?? false,
        keepWhenBypassed: options.keepWhenBypassed ?? false,
        instance,
        className,
      });
    }
    this.logger.log(
      `Discovered ${this.catalog.list().length} hook(s): ${
        this.catalog
          .list()
          .map((e) => e.name)
          .join(', ') || 'none'
      }`,
    );
  }
}
