import { Injectable, Optional } from '@nestjs/common';
import type { Principal } from '@warden/auth';
import { BadInputError, NotFoundError } from '@warden/common';
import { randomUUID } from 'node:crypto';
import { AgentConfigLookup } from './agent-config-lookup.js';
import { DRY_RUN_POINTS } from './dto/dry-run.dto.js';
import { HookResolver } from './hook-resolver.js';
import { runTextHooks } from './hook-points.js';
import { HookPoint, type AgentHookSettings, type ApproverScope, type HookOutcome, type ToolArgs } from './hook.types.js';

export interface DryRunVerdict {
  hook: string;
  point: string;
  outcome: 'allow' | 'block' | 'rewrite' | 'ask' | 'would_require_confirmation';
  detail: string | null;
}

const APPROVER_SCOPES: ApproverScope[] = ['initiator', 'agent_owner', 'org_members', 'org_admins'];
const isDryRunPoint = (p: string): p is HookPoint => (DRY_RUN_POINTS as readonly string[]).includes(p);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

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
    body: { agent_id?: string; model_config_json?: Record<string, unknown>; tool?: string; args?: ToolArgs; point?: string; text?: string },
  ): Promise<DryRunVerdict[]> {
    if ((body.agent_id === undefined) === (body.model_config_json === undefined)) {
      throw new BadInputError('give exactly one of agent_id or model_config_json');
    }
    const args = body.args ?? {};
    let hooksConfig: unknown;
    let agent: AgentHookSettings;
    if (body.agent_id !== undefined) {
      if (!this.lookup) throw new BadInputError('dry runs by agent_id need the agents module; send model_config_json instead');
      const setup = await this.lookup.findHookSetup(principal.orgId, body.agent_id);
      if (!setup) throw new NotFoundError('agent', body.agent_id);
      ({ hooksConfig, agent } = setup);
    } else {
      const json = body.model_config_json;
      // Checked above: without agent_id, model_config_json is given.
      if (json === undefined) throw new BadInputError('give exactly one of agent_id or model_config_json');
      hooksConfig = json.hooks;
      agent = unsavedAgent(json, principal);
      const problems = await this.resolver.validate(hooksConfig);
      if (problems.length) throw new BadInputError(`model_config_json.hooks is invalid: ${problems.join('; ')}`, problems);
    }
    // A saved agent whose hooks no longer build gets the same 422 its runs would get.
    const registry = await this.resolver.resolve({ hooksConfig, agent });
    const tool = body.tool ?? '';
    const metadata = this.lookup && tool ? await this.lookup.toolMetadata(principal.orgId, tool, args) : {};
    const point = body.point ?? HookPoint.PreToolUse;
    if (!isDryRunPoint(point)) throw new BadInputError(`point must be one of ${DRY_RUN_POINTS.join(', ')}`);
    if (point !== HookPoint.PreToolUse) {
      const text = body.text ?? '';
      const model = point === HookPoint.PreModelCall ? { provider: 'openai', model: text, turn: 0, messages: 0 } : undefined;
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
    const verdict = await registry.runPreToolUse({
      toolName: tool,
      toolArgs: args,
      agentId: agent.id,
      userId: principal.userId,
      orgId: principal.orgId,
      runId: randomUUID(),
      callId: randomUUID(),
      surface: 'api',
      metadata: { ...metadata, agent, dryRun: true },
      emit: () => Promise.resolve(),
    });
    return verdict.outcomes.map((o) => toVerdict(o, !verdict.allow && verdict.blockedBy === o.hook));
  }
}

/** A failed hook is reported as what it amounted to: a block when it closed the gate, else (on_error: allow) an allow. */
function toVerdict(o: HookOutcome, closedTheGate: boolean): DryRunVerdict {
  const outcome = o.outcome === 'error' ? (closedTheGate ? 'block' : 'allow') : o.outcome;
  const detail = o.detail ?? (o.sideEffects.length ? o.sideEffects.join('; ') : null);
  return { hook: o.hook, point: o.point, outcome, detail: o.outcome === 'error' ? `hook failed: ${detail}` : detail };
}

/** Hook settings for a config that is not saved yet (the same keys the agents API reads). */
function unsavedAgent(json: Record<string, unknown>, principal: Principal): AgentHookSettings {
  const confirmation = isObject(json.confirmation) ? json.confirmation : {};
  const scope = confirmation.approver_scope as ApproverScope;
  return {
    id: randomUUID(),
    name: 'dry run',
    orgId: principal.orgId,
    ownerUserId: principal.userId,
    requireConfirmationForAll: json.require_confirmation_for_all === true,
    confirmation: {
      channelId: typeof confirmation.channel_id === 'string' ? confirmation.channel_id : undefined,
      timeoutS: typeof confirmation.timeout_s === 'number' ? confirmation.timeout_s : 120,
      approverScope: APPROVER_SCOPES.includes(scope) ? scope : 'initiator',
      forbidSelfApproval: confirmation.forbid_self_approval === true,
    },
  };
}
