import { Global, Module, type OnModuleInit } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { AppConfig } from '@warden/common';
import { BuiltinHooksModule } from './builtin/builtin-hooks.module.js';
import { HookCatalog } from './hook-catalog.js';
import { HookDryRunService } from './hook-dry-run.service.js';
import { HookExplorer } from './hook-explorer.js';
import { HookResolver } from './hook-resolver.js';
import { setHookTiming } from './hook-timing.js';
import { HooksController } from './hooks.controller.js';
import { OrgHooksController } from './org/org-hooks.controller.js';
import { OrgHooksService } from './org/org-hooks.service.js';
import { OrgHooksStore } from './org/org-hooks.store.js';
import { OrgHooksVersionsController } from './versions/org-hooks-versions.controller.js';
import { PolicyVersions } from './versions/policy-versions.js';

/**
 * The hook engine: discovers @Hook providers of every module, resolves per-run registries, serves the catalog and
 * dry runs. Global so that the agent runtime, evals and workflows can ask for a HookResolver without an import.
 */
@Global()
@Module({
  imports: [DiscoveryModule, BuiltinHooksModule],
  controllers: [HooksController, OrgHooksController, OrgHooksVersionsController],
  providers: [
    HookCatalog,
    HookExplorer,
    HookResolver,
    HookDryRunService,
    OrgHooksStore,
    OrgHooksService,
    PolicyVersions,
  ],
  exports: [HookCatalog, HookResolver, PolicyVersions, OrgHooksService],
})
export class HooksModule implements OnModuleInit {
  constructor(private readonly config: AppConfig) {}

  onModuleInit(): void {
    setHookTiming(this.config.hookTiming);
  }
}
