import { Injectable, Optional } from '@nestjs/common';
import type { Principal } from '@warden/auth';
import { BadInputError, NotFoundError } from '@warden/common';
import { randomUUID } from 'node:crypto';
import { AgentConfigLookup } from './agent-config-lookup.js';
import { DRY_RUN_POINTS } from './dto/dry-run.dto.js';
import { HookResolver } from './hook-resolver.js';
import { runTextHooks } from './hook-points.js';
import { toVerdict, tracedPreToolUse, unsavedAgent, verdictsOf, type DryRunVerdict } from './dry-run-verdicts.js';
import { HookPoint, type AgentHookSettings, type ToolArgs, type ToolCallMetadata } from './hook.types.js';

export type { DryRunVerdict } from './dry-run-verdicts.js';

const isDryRunPoint = (p: string): p is HookPoint => (DRY_RUN_POINTS as readonly string[]).includes(p);

/**
 * POST /api/hooks/dry-run: runs an agent's PreToolUse hooks (class, YAML, auto-attached) for one sample call with
 * `metadata.dryRun` set and a no-op event emitter, and reports each hook's verdict. The tool is not executed;
 * hooks honour dryRun (no cards sent, no rows written, no waiting).
 */
@Injectable()
export class HookDryRunService {
  constructor(
    private readonly resolver: HookResolver,
    @Optional() private readonly lookup?: AgentConfigLookup,
  ) {}

  async dryRun(
    principal: Principal,
    body: {
      agent_id?: string;
      model_config_json?: Record<string, unknown>;
      tool?: string;
      args?: ToolArgs;
      point?: string;
      text?: string;
    },
  ): Promise<DryRunVerdict[]> {
    if ((body.agent_id === undefined) === (body.model_config_json === undefined)) {
      throw new BadInputError('give exactly one of agent_id or model_config_json');
    }
    const args = body.args ?? {};
    let hooksConfig: unknown;
    let agent: AgentHookSettings;
    if (body.agent_id !== undefined) {
      if (!this.lookup)
        throw new BadInputError('dry runs by agent_id need the agents module; send model_config_json instead');
      const setup = await this.lookup.findHookSetup(principal.orgId, body.agent_id);
      if (!setup) throw new NotFoundError('agent', body.agent_id);
      ({ hooksConfig, agent } = setup);
    } else {
      const json = body.model_config_json;
      // Checked above: without agent_id, model_config_json is given.
      if (json === undefined) throw new BadInputError('give exactly one of agent_id or model_config_json');
      hooksConfig = json.hooks;
      const unsaved = unsavedAgent(json, principal);
      agent = unsaved.agent;
      const problems = [...unsaved.problems, ...(await this.resolver.validate(hooksConfig))];
      if (problems.length)
        throw new BadInputError(`model_config_json.hooks is invalid: ${problems.join('; ')}`, problems);
    }
    // A saved agent whose hooks no longer build gets the same 422 its runs would get.
    const registry = await this.resolver.resolve({ hooksConfig, agent });
    const tool = body.tool ?? '';
    const metadata = this.lookup && tool ? await this.lookup.toolMetadata(principal.orgId, tool, args) : {};
    const point = body.point ?? HookPoint.PreToolUse;
    if (!isDryRunPoint(point)) throw new BadInputError(`point must be one of ${DRY_RUN_POINTS.join(', ')}`);
    if (point !== HookPoint.PreToolUse) {
      const text = body.text ?? '';
      const model =
        point === HookPoint.PreModelCall ? { provider: 'openai', model: text, turn: 0, messages: 0 } : undefined;
      const verdict = await runTextHooks(
        registry,
        point,
        {
          toolName: tool,
          toolArgs: args,
          agentId: agent.id,
          userId: principal.userId,
          orgId: principal.orgId,
          runId: randomUUID(),
          callId: randomUUID(),
          surface: 'api',
          metadata: { ...metadata, agent, dryRun: true, ...(model ? { model } : {}) },
          emit: () => Promise.resolve(),
        },
        point === HookPoint.PreModelCall ? '' : text,
      );
      return verdict.outcomes.map((o) => toVerdict(o, !verdict.allow && verdict.blockedBy === o.hook));
    }
    const chain = tracedPreToolUse(registry);
    const ctxMetadata: ToolCallMetadata = { ...metadata, agent, dryRun: true };
    const verdict = await chain.registry.runPreToolUse({
      toolName: tool,
      toolArgs: args,
      agentId: agent.id,
      userId: principal.userId,
      orgId: principal.orgId,
      runId: randomUUID(),
      callId: randomUUID(),
      surface: 'api',
      metadata: ctxMetadata,
      emit: () => Promise.resolve(),
    });
    return verdictsOf(verdict, chain, ctxMetadata, agent);
  }
}
