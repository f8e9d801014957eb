import { Injectable } from '@nestjs/common';
import { NotFoundError } from '@warden/common';
import {
  HookResolver,
  type AgentHookSettings,
  type HookRegistry,
  type ToolArgs,
  type ToolCallMetadata,
} from '@warden/hooks';
import { randomUUID } from 'node:crypto';
import { hookSettingsOf, parseAgentConfig } from '../agents/agent-config.js';
import { withPolicy } from '../agents/agent-policy.js';
import { AgentsService } from '../agents/agents.service.js';
import { ToolRegistry, type ResolvedTool } from '../tools/tool-registry.js';
import { decisionOf, skippedHooks, type Decision } from './policy-decision.js';

/**
 * What a candidate chain is built from: the agent's hooks and settings, and the org hooks in place of the saved
 * ones.
 */
export interface CandidateSetup {
  hooksConfig: unknown;
  agent: AgentHookSettings;
  /** A candidate org hooks config; absent: the org's saved hooks. */
  orgHooks?: unknown;
}

/** A candidate policy: an agent's policy fragment, or the org's hooks. */
export type Candidate =
  { type: 'agent'; config: Record<string, unknown> } | { type: 'org_hooks'; config: Record<string, unknown> };

/** One call to decide: who made it, with which tool and args. */
export interface EvaluatedCall {
  orgId: string;
  agentId: string;
  userId: string;
  tool: string;
  args: ToolArgs;
  runId?: string | null;
  callId?: string | null;
}

const noEmit = () => Promise.resolve();

/**
 * Decides calls under a candidate policy without side effects: the PreToolUse chain of the candidate (the same
 * HookResolver and hooks a run gets, the kernel's `requirementOf` for the tier) in dry-run mode — no human asked, no
 * row written, no card sent, nothing executed — and, unless `allowExternal`, command and HTTP hooks not run.
 */
@Injectable()
export class PolicyEvaluator {
  constructor(
    private readonly resolver: HookResolver,
    private readonly agents: AgentsService,
    private readonly tools: ToolRegistry,
  ) {}

  /** The setup of `agentId`'s calls under `candidate` (the agent as saved when no candidate is given). */
  async setup(orgId: string, agentId: string, candidate?: Candidate): Promise<CandidateSetup> {
    const found = await this.agents.findWithConfig(orgId, agentId).catch((err: unknown) => {
      if (err instanceof NotFoundError) return null;
      throw err;
    });
    const base = { id: agentId, name: '', ownerUserId: null, orgId };
    if (!found) {
      const config = parseAgentConfig(
        candidate?.type === 'agent' ? { model: {}, ...candidate.config } : { model: {} },
      ).config;
      return { hooksConfig: config.hooks, agent: hookSettingsOf(base, config), ...orgOf(candidate) };
    }
    const json =
      candidate?.type === 'agent'
        ? withPolicy(found.agent.modelConfigJson, candidate.config)
        : found.agent.modelConfigJson;
    const config = candidate?.type === 'agent' ? parseAgentConfig(json).config : found.config;
    return {
      hooksConfig: config.hooks,
      agent: hookSettingsOf(
        { id: found.agent.id, name: found.agent.name, ownerUserId: found.agent.ownerUserId, orgId },
        config,
      ),
      ...orgOf(candidate),
    };
  }

  /** The chain of `setup` (HookBuildError when it does not build). */
  registry(setup: CandidateSetup): Promise<HookRegistry> {
    return this.resolver.resolve({ hooksConfig: setup.hooksConfig, agent: setup.agent, orgHooks: setup.orgHooks });
  }

  /** The org's tools by name, for `metadata` (read once per evaluation). */
  async toolsOf(orgId: string): Promise<Map<string, ResolvedTool>> {
    return new Map((await this.tools.all(orgId)).map((t) => [t.spec.name, t]));
  }

  metadata(tools: Map<string, ResolvedTool>, tool: string, args: ToolArgs): ToolCallMetadata {
    return this.tools.metadataFor(tools.get(tool), args);
  }

  /**
   * The candidate's decision for `call`, the args as its chain left them, and the command/HTTP hooks it did not
   * run.
   */
  async decide(
    registry: HookRegistry,
    setup: CandidateSetup,
    call: EvaluatedCall,
    metadata: ToolCallMetadata,
    allowExternal = false,
  ): Promise<{ decision: Decision; args: ToolArgs; skipped: string[] }> {
    const verdict = await registry.runPreToolUse({
      toolName: call.tool,
      toolArgs: call.args,
      agentId: call.agentId,
      userId: call.userId,
      orgId: call.orgId,
      runId: call.runId ?? randomUUID(),
      callId: call.callId ?? randomUUID(),
      surface: 'api',
      metadata: {
        ...metadata,
        agent: setup.agent,
        dryRun: true,
        ...(allowExternal ? {} : { externalHooks: 'skip' as const }),
      },
      emit: noEmit,
    });
    return {
      decision: decisionOf(call.tool, call.args, verdict, setup.agent),
      args: verdict.args,
      skipped: skippedHooks(verdict),
    };
  }
}

const orgOf = (candidate?: Candidate) => (candidate?.type === 'org_hooks' ? { orgHooks: candidate.config } : {});
