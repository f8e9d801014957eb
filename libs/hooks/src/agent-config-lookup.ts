import type { AgentHookSettings, ToolArgs, ToolCallMetadata } from './hook.types.js';

/**
 * What the hooks library needs to know about agents and tools for a dry run, provided (globally) by the agents
 * module. An abstract class so that hooks does not depend on agents (DESIGN.md: agents -> hooks).
 */
export abstract class AgentConfigLookup {
  /** The agent's `model_config_json.hooks` and its hook settings, or null when it is not in this org. */
  abstract findHookSetup(
    orgId: string,
    agentId: string,
  ): Promise<{ hooksConfig: unknown; agent: AgentHookSettings } | null>;
  /** The metadata the runtime would give hooks for this call (e.g. requiresConfirmation of a connector action). */
  abstract toolMetadata(orgId: string, tool: string, args: ToolArgs): Promise<ToolCallMetadata>;
}
