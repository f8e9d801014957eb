import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChannelsModule } from '@warden/channels';
import { AgentConfigLookup } from '@warden/hooks';
import { AgentHookLookup } from './agents/agent-config-lookup.service.js';
import { Agent } from './agents/agent.entity.js';
import { AgentsController } from './agents/agents.controller.js';
import { AgentsService } from './agents/agents.service.js';
import { Connector, ConnectorAction } from './connectors/connector.entity.js';
import { ConnectorExecutor } from './connectors/connector-executor.js';
import { ConnectorsController } from './connectors/connectors.controller.js';
import { ConnectorsService } from './connectors/connectors.service.js';
import { RunExecutor } from './engine/run-executor.js';
import { RunRecovery } from './engine/run-recovery.js';
import { ToolCallRunner } from './engine/tool-call-runner.js';
import { ToolExecution } from './engine/tool-execution.js';
import { RunMetrics } from './runs/run-metrics.js';
import { LlmProviderFactory } from './llm/llm-provider.factory.js';
import { ChatController } from './runs/chat.controller.js';
import { RunEventsService } from './runs/run-events.service.js';
import { AgentRun, Conversation, RunEvent, ToolCallRecord } from './runs/run.entity.js';
import { RunsController } from './runs/runs.controller.js';
import { RunsService } from './runs/runs.service.js';
import { CallAgentTool } from './tools/call-agent.tool.js';
import { ChannelNotifyTool } from './tools/channel-notify.tool.js';
import { AskHumanTool } from './tools/ask-human.tool.js';
import { ToolRegistry } from './tools/tool-registry.js';

/** Connectors, agents, the LLM providers, the run engine (ReAct + DAG) and the chat / runs API. Global: other modules register built-in tools and start runs. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([Connector, ConnectorAction, Agent, AgentRun, RunEvent, ToolCallRecord, Conversation]), ChannelsModule, DiscoveryModule],
  controllers: [ConnectorsController, AgentsController, ChatController, RunsController],
  providers: [
    ConnectorsService, ConnectorExecutor, ToolRegistry, AgentsService, AgentHookLookup, LlmProviderFactory,
    RunEventsService, RunMetrics, ToolCallRunner, ToolExecution, RunExecutor, RunRecovery, RunsService, CallAgentTool, ChannelNotifyTool, AskHumanTool,
    { provide: AgentConfigLookup, useExisting: AgentHookLookup },
  ],
  exports: [ConnectorsService, ConnectorExecutor, ToolRegistry, AgentsService, RunEventsService, ToolCallRunner, RunExecutor, RunsService, AgentConfigLookup],
})
export class AgentsModule {}
