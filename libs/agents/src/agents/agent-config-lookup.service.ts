import { Injectable } from '@nestjs/common';
import { NotFoundError } from '@warden/common';
import { AgentConfigLookup, type AgentHookSettings, type ToolArgs, type ToolCallMetadata } from '@warden/hooks';
import { ToolRegistry } from '../tools/tool-registry.js';
import { hookSettingsOf } from './agent-config.js';
import { AgentsService } from './agents.service.js';

/** Tells the hooks library (dry runs) about agents and tools without it depending on this module. */
@Injectable()
export class AgentHookLookup extends AgentConfigLookup {
  constructor(
    private readonly agents: AgentsService,
    private readonly tools: ToolRegistry,
  ) {
    super();
  }

  async findHookSetup(
    orgId: string,
    agentId: string,
  ): Promise<{ hooksConfig: unknown; agent: AgentHookSettings } | null> {
    try {
      const { agent, config } = await this.agents.findWithConfig(orgId, agentId);
      return { hooksConfig: config.hooks, agent: hookSettingsOf(agent, config) };
    } catch (err) {
      if (err instanceof NotFoundError) return null;
      throw err;
    }
  }

  async toolMetadata(orgId: string, tool: string, args: ToolArgs): Promise<ToolCallMetadata> {
    const resolved = (await this.tools.all(orgId)).find((t) => t.spec.name === tool);
    return this.tools.metadataFor(resolved, args);
  }
}
