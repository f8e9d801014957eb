import { Injectable } from '@nestjs/common';
import { AppConfig, DomainErrorKind, DomainException, isUuid, NotFoundError } from '@warden/common';
import { HookBuildError, HookResolver, PolicyVersions, type Surface } from '@warden/hooks';
import { randomBytes } from 'node:crypto';
import { hookSettingsOf, parseAgentConfig, withConfirmationOverride } from '../agents/agent-config.js';
import type { Agent } from '../agents/agent.entity.js';
import { AgentsService } from '../agents/agents.service.js';
import type { ChatMessage } from '../llm/llm-provider.js';
import { AgentRun, Conversation, type RunState, type ToolRunSpec } from '../runs/run.entity.js';
import type { PreparedRun, StartRunOptions } from './live-run.js';
import { RunFinisher } from './run-finisher.js';
import { RunStore } from './run-store.js';
import { ToolCallRunner } from './tool-call-runner.js';

const DEFAULT_INSTRUCTIONS = 'You are a helpful assistant.';
const newCallId = () => `call_${randomBytes(12).toString('hex')}`;

export interface ToolRunOptions {
  orgId: string;
  userId: string;
  ownerId: string;
  ownerUserId: string | null;
  name: string;
  surface: Surface;
  tool: string;
  args: Record<string, unknown>;
  hooksConfig?: unknown;
  confirmation?: Record<string, unknown>;
}

/** A run just recorded (leased to this instance at epoch 1) and what it needs in memory to be driven. */
export interface CreatedRun {
  run: AgentRun;
  prepared: PreparedRun;
}

/**
 * Records new runs (their row, conversation and first events in one transaction, leased from birth so no recovery
 * loop takes a starting run) and builds what a run needs in memory — its agent, config and hook registry — for a new
 * run or one resumed from the database. A hook build error refuses the run (status `refused`, `error` + `done`).
 */
@Injectable()
export class RunFactory {
  constructor(
    private readonly agents: AgentsService,
    private readonly hooks: HookResolver,
    private readonly store: RunStore,
    private readonly finisher: RunFinisher,
    private readonly toolCalls: ToolCallRunner,
    private readonly config: AppConfig,
    private readonly versions: PolicyVersions,
  ) {}

  async createAgentRun(opts: StartRunOptions): Promise<CreatedRun> {
    const { agent, config, policyVersion } = await this.agents.findWithConfig(opts.orgId, opts.agentId);
    const mode = opts.mode ?? 'react';
    const conversation = await this.conversationFor(opts);
    const messages: ChatMessage[] = [
      { role: 'system', content: agent.instructions || DEFAULT_INSTRUCTIONS },
      ...(conversation?.messages ?? []),
      { role: 'user', content: opts.message },
    ];
    const state: RunState = {
      phase: 'start',
      messages,
      turns: 0,
      // Read from the same caches the hooks are built from just below.
      policy_versions: { agent: policyVersion, org_hooks: await this.versions.orgHooksVersion(opts.orgId) },
      ...(opts.eval ? { eval: opts.eval } : {}),
      ...(opts.confirmationOverride ? { confirmation_override: opts.confirmationOverride } : {}),
    };
    // A chat or API run without a conversation starts one (recorded with the run).
    const newConversation = !conversation && (opts.surface === 'chat' || opts.surface === 'api');
    const run = await this.store.insertRun(
      {
        orgId: opts.orgId,
        agentId: agent.id,
        userId: opts.userId,
        conversationId: conversation?.id ?? null,
        parentRunId: opts.parentRunId ?? null,
        parentCallId: opts.parentCallId ?? null,
        surface: opts.surface,
        mode,
        hooks: opts.eval ? 'bypassed' : 'active',
        message: opts.message,
        state,
      },
      { newConversation, redoable: true },
    );
    const settings = withConfirmationOverride(hookSettingsOf(agent, config), opts.confirmationOverride);
    const registry = await this.refuseUnlessBuilt(run, `the agent's hooks cannot be built`, async () =>
      opts.eval
        ? this.hooks.resolveBypassed(settings)
        : this.hooks.resolve({ hooksConfig: config.hooks, agent: settings }),
    );
    return { run, prepared: { agent, config, settings, registry } };
  }

  /**
   * A one-call run (workflow CONNECTOR nodes): the call goes through the same pipeline as an agent's tool call — the
   * hooks of `hooksConfig` plus every auto-attached hook (so the approval gate), a durable tool-call record,
   * exactly-once execution — and its observation is the run's answer. `ownerId` stands in for the agent id.
   */
  async createToolRun(opts: ToolRunOptions): Promise<CreatedRun> {
    const spec: ToolRunSpec = {
      owner_id: opts.ownerId,
      name: opts.name,
      owner_user_id: opts.ownerUserId,
      org_id: opts.orgId,
      model_config_json: {
        model: { provider: 'scripted', script: [{ content: '' }] },
        tools: [opts.tool],
        max_iterations: 1,
        ...(opts.hooksConfig ? { hooks: opts.hooksConfig } : {}),
        ...(opts.confirmation ? { confirmation: opts.confirmation } : {}),
      },
    };
    const call = { call_id: newCallId(), tool: opts.tool, args: opts.args };
    const run = await this.store.insertRun(
      {
        orgId: opts.orgId,
        agentId: opts.ownerId,
        userId: opts.userId,
        conversationId: null,
        parentRunId: null,
        parentCallId: null,
        surface: opts.surface,
        mode: 'react',
        hooks: 'active',
        message: `${opts.tool} ${JSON.stringify(opts.args)}`,
        state: {
          phase: 'tools',
          messages: [],
          turns: 0,
          pending_calls: [call],
          tool_run: spec,
          policy_versions: { agent: null, org_hooks: await this.versions.orgHooksVersion(opts.orgId) },
        },
      },
      { newConversation: false, redoable: false },
    );
    const prepared = await this.refuseUnlessBuilt(run, 'the hooks cannot be built', () => this.prepareToolRun(spec));
    await this.store.transaction(async (tx) => {
      await this.toolCalls.record(run.id, [call], tx.m);
      await this.store.appendEvent(run, 'tool_call', { call_id: call.call_id, tool: call.tool, args: call.args }, tx);
    });
    return { run, prepared };
  }

  /** What a persisted run needs in memory to be driven again (its hooks rebuilt from the agent's current config). */
  async prepare(run: AgentRun): Promise<PreparedRun> {
    if (run.state.tool_run) return this.prepareToolRun(run.state.tool_run);
    const { agent, config } = await this.agents.findWithConfig(run.orgId, run.agentId);
    const settings = withConfirmationOverride(hookSettingsOf(agent, config), run.state.confirmation_override);
    const registry =
      run.hooks === 'bypassed'
        ? await this.hooks.resolveBypassed(settings)
        : await this.hooks.resolve({ hooksConfig: config.hooks, agent: settings });
    return { agent, config, settings, registry };
  }

  private async prepareToolRun(spec: ToolRunSpec): Promise<PreparedRun> {
    const { config } = parseAgentConfig(spec.model_config_json);
    const agent = {
      id: spec.owner_id,
      name: spec.name,
      ownerUserId: spec.owner_user_id,
      orgId: spec.org_id,
      instructions: '',
    } as Agent;
    const settings = hookSettingsOf(agent, config);
    return {
      agent,
      config,
      settings,
      registry: await this.hooks.resolve({ hooksConfig: config.hooks, agent: settings }),
    };
  }

  private async refuseUnlessBuilt<T>(run: AgentRun, what: string, build: () => Promise<T> | T): Promise<T> {
    try {
      return await build();
    } catch (err) {
      const message = err instanceof HookBuildError ? err.message : `${what}: ${(err as Error).message}`;
      await this.finisher.finish(run, 'refused', { error: message });
      throw err instanceof HookBuildError ? err : new DomainException(DomainErrorKind.RunRefused, message);
    }
  }

  /** The conversation the run continues (the caller's own, with this agent), or null for a new one. */
  private async conversationFor(opts: StartRunOptions): Promise<Conversation | null> {
    if (!opts.conversationId) return null;
    const found = isUuid(opts.conversationId)
      ? await this.store.dataSource
          .getRepository(Conversation)
          .findOneBy({ id: opts.conversationId, orgId: opts.orgId, userId: opts.userId, agentId: opts.agentId })
      : null;
    if (!found) throw new NotFoundError('conversation', opts.conversationId);
    return found;
  }
}
