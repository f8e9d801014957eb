import { OrgsService } from '@warden/auth';
import { Hook } from '../../hook.decorator.js';
import { PreToolUseHook, type HookContext, type HookResult } from '../../hook.types.js';

export const READ_ONLY_GUARD_HOOK = 'read_only_guard';

/**
 * While the org is read-only (`PUT /api/org/read-only`), refuses every tool call that writes (a connector action's
 * `write`, or a built-in tool that declares it). Auto-attached: the org switch must hold for every agent. Runs
 * before the confirmation gate (10), so a refused call never posts an approval card. Read calls never reach the
 * database: shouldTrigger looks at the call's metadata only.
 */
@Hook({
  name: READ_ONLY_GUARD_HOOK,
  priority: 5,
  autoAttach: true,
  description: 'Blocks write tools while the org is in read-only mode (PUT /api/org/read-only).',
})
export class ReadOnlyGuardHook extends PreToolUseHook {
  constructor(private readonly orgs: OrgsService) {
    super();
  }

  override shouldTrigger(ctx: HookContext): boolean {
    return ctx.metadata.write === true;
  }

  async execute(ctx: HookContext): Promise<HookResult> {
    const org = await this.orgs.cached(ctx.orgId);
    if (!org.readOnly) return {};
    return {
      allow: false,
      error: `org ${org.name} is in read-only mode: write tool ${ctx.toolName} refused`,
      sideEffects: [`refused write tool ${ctx.toolName} (org read-only)`],
    };
  }
}
