import type { ToolCallContext } from '../hook-registry.js';

/** A tool call's hook context for specs: one org, agent, user and run; `overrides` set what a spec looks at. */
export function toolCallContext(overrides: Partial<ToolCallContext> = {}): ToolCallContext {
  return {
    toolName: 'oa__purchase_pay',
    toolArgs: { id: 'PO-1' },
    agentId: 'agent-1',
    userId: 'user-1',
    orgId: 'org-1',
    runId: 'run-1',
    callId: 'call-1',
    surface: 'chat',
    metadata: {},
    emit: () => Promise.resolve(),
    ...overrides,
  };
}
