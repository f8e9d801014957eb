import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChannelsModule } from '@warden/channels';
import { AgentConfigLookup } from '@warden/hooks';
import { AgentHookLookup } from './agents/agent-config-lookup.service.js';
import { Agent } from './agents/agent.entity.js';
import { AgentsController } from './agents/agents.controller.js';
import { AgentVersionsController } from './agents/agent-versions.controller.js';
import { AgentConfigCheck } from './agents/agent-config-check.js';
import { AgentsService } from './agents/agents.service.js';
import { Connector, ConnectorAction } from './connectors/connector.entity.js';
import { ConnectorExecutor } from './connectors/connector-executor.js';
import { ConnectorsController } from './connectors/connectors.controller.js';
import { ConnectorsService } from './connectors/connectors.service.js';
import { DagSteps } from './engine/dag-steps.js';
import { LiveRunBuilder } from './engine/live-run-builder.js';
import { ReactSteps } from './engine/react-steps.js';
import { ConversationsController } from './conversations/conversations.controller.js';
import { ConversationsService } from './conversations/conversations.service.js';
import { ConversationsStore } from './conversations/conversations.store.js';
import { RunExecutor } from './engine/run-executor.js';
import { RunFinisher } from './engine/run-finisher.js';
import { RunStore } from './engine/run-store.js';
import { RunLeases } from './engine/run-leases.js';
import { RunFactory } from './engine/run-factory.js';
import { RunRecovery } from './engine/run-recovery.js';
import { ParkedRunResumer } from './engine/parked-run-resumer.js';
import { ParkedLives } from './engine/parked-lives.js';
import { ToolCallRecovery } from './engine/tool-call-recovery.js';
import { ToolCallOutcomes } from './engine/tool-call-outcomes.js';
import { ToolCallRunner } from './engine/tool-call-runner.js';
import { ToolCallStore } from './engine/tool-call.store.js';
import { ToolExecution } from './engine/tool-execution.js';
import { RunMetrics } from './runs/run-metrics.js';
import { LlmProviderFactory } from './llm/llm-provider.factory.js';
import { LlmCredentialsController } from './llm-credentials/llm-credentials.controller.js';
import { LlmCredentialsService } from './llm-credentials/llm-credentials.service.js';
import { LlmCredentialsStore } from './llm-credentials/llm-credentials.store.js';
import { ChatController } from './runs/chat.controller.js';
import { RunEventsService } from './runs/run-events.service.js';
import { AgentRun, Conversation, RunEvent, ToolCallRecord } from './runs/run.entity.js';
import { RunsController } from './runs/runs.controller.js';
import { RunsService } from './runs/runs.service.js';
import { CallAgentTool } from './tools/call-agent.tool.js';
import { ChannelNotifyTool } from './tools/channel-notify.tool.js';
import { AskHumanTool } from './tools/ask-human.tool.js';
import { ToolRegistry } from './tools/tool-registry.js';
import { McpClientPool } from './mcp/mcp-client-pool.js';
import { McpServersController } from './mcp/mcp-servers.controller.js';
import { McpServersService } from './mcp/mcp-servers.service.js';
import { McpServersStore } from './mcp/mcp-servers.store.js';
import { ToolNamespaces } from './tools/tool-namespaces.js';
import { McpToolExecutor } from './mcp/mcp-tool-executor.js';
import { PolicyLifecycleModule } from './policy-lifecycle/policy-lifecycle.module.js';

/**
 * Connectors, agents, the LLM providers, the run engine (ReAct + DAG) and the chat / runs API. Global: other modules
 * register built-in tools and start runs.
 */
@Global()
@Module({
  imports: [
    TypeOrmModule.forFeature([Connector, ConnectorAction, Agent, AgentRun, RunEvent, ToolCallRecord, Conversation]),
    ChannelsModule,
    DiscoveryModule,
    PolicyLifecycleModule,
  ],
  controllers: [
    ConnectorsController,
    AgentsController,
    AgentVersionsController,
    ChatController,
    RunsController,
    LlmCredentialsController,
    ConversationsController,
    McpServersController,
  ],
  providers: [
    ConnectorsService,
    ConnectorExecutor,
    ToolRegistry,
    AgentsService,
    AgentConfigCheck,
    AgentHookLookup,
    LlmProviderFactory,
    LlmCredentialsStore,
    LlmCredentialsService,
    RunEventsService,
    RunMetrics,
    ToolCallOutcomes,
    ToolCallRunner,
    ToolCallStore,
    ToolCallRecovery,
    ToolExecution,
    RunStore,
    RunFinisher,
    RunLeases,
    RunFactory,
    LiveRunBuilder,
    ReactSteps,
    DagSteps,
    RunExecutor,
    RunRecovery,
    ParkedRunResumer,
    ParkedLives,
    RunsService,
    CallAgentTool,
    ChannelNotifyTool,
    AskHumanTool,
    ConversationsStore,
    ConversationsService,
    McpServersStore,
    ToolNamespaces,
    McpClientPool,
    McpServersService,
    McpToolExecutor,
    { provide: AgentConfigLookup, useExisting: AgentHookLookup },
  ],
  exports: [
    ConnectorsService,
    ConnectorExecutor,
    ToolRegistry,
    AgentsService,
    RunEventsService,
    ToolCallRunner,
    RunExecutor,
    RunsService,
    AgentConfigLookup,
  ],
})
export class AgentsModule {}
