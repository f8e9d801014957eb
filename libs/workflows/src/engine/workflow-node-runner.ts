import { Injectable } from '@nestjs/common';
import { RunEventsService, RunExecutor, type RunOutcome } from '@warden/agents';
import {
  evaluateWorkflowCel,
  nodeField,
  renderArgs,
  renderTemplate,
  type WorkflowNode,
} from '../workflow-definition.js';
import type { WorkflowRun } from '../workflow.entity.js';
import { WorkflowRunLeases } from './workflow-run-leases.js';

/**
 * Runs one node of a workflow run and records its outcome on the node. START, END and CONDITION nodes complete at
 * once; AGENT, CONNECTOR and HUMAN nodes are runs of the run engine on surface `workflow`, so the agent's own hooks
 * and the approval gate apply exactly as in chat. Every write goes through the run's fence (WorkflowRunLeases).
 */
@Injectable()
export class WorkflowNodeRunner {
  constructor(
    private readonly leases: WorkflowRunLeases,
    private readonly executor: RunExecutor,
    private readonly agentRunEvents: RunEventsService,
  ) {}

  /**
   * Runs the node; a failure fails the node (not the drive), unless the drive was stopped meanwhile or is over (the
   * run ended with this branch under way: its refused write ends it quietly, with no second write).
   */
  async run(run: WorkflowRun, node: WorkflowNode, scope: Record<string, unknown>): Promise<void> {
    try {
      switch (node.type) {
        case 'start': {
          await this.leases.setNode(run, node.id, { status: 'completed', output: run.inputs }, 'node_completed');
          return;
        }
        case 'end': {
          await this.leases.setNode(run, node.id, { status: 'completed', output: null }, 'node_completed');
          return;
        }
        case 'condition': {
          const value: unknown = evaluateWorkflowCel(nodeField(node, 'expression'), scope);
          await this.leases.setNode(
            run,
            node.id,
            { status: 'completed', output: typeof value === 'bigint' ? Number(value) : value },
            'node_completed',
          );
          return;
        }
        case 'agent':
        case 'connector':
        case 'human': {
          await this.runRunNode(run, node, scope);
          return;
        }
      }
    } catch (err) {
      if (this.leases.signalOf(run.id).aborted) return;
      await this.leases.setNode(run, node.id, { status: 'failed', error: (err as Error).message }, 'node_failed');
    }
  }

  /**
   * AGENT and CONNECTOR nodes are runs of the run engine on surface `workflow`: an agent run, or a one-call run of the
   * connector tool with the node's hooks plus the auto-attached ones (the approval gate included).
   */
  private async runRunNode(run: WorkflowRun, node: WorkflowNode, scope: Record<string, unknown>): Promise<void> {
    let agentRunId = run.nodes[node.id].agent_run_id;
    let completion: Promise<RunOutcome>;
    if (agentRunId) {
      // Resumed: the run continues on its own (run recovery); wait for it from here.
      completion = this.executor.waitForRun(agentRunId, this.leases.signalOf(run.id));
    } else {
      await this.leases.setNode(run, node.id, { status: 'running' }, 'node_started');
      const started =
        node.type === 'agent'
          ? await this.executor.start({
              orgId: run.orgId,
              userId: run.userId,
              agentId: nodeField(node, 'agent_id'),
              message: renderTemplate(nodeField(node, 'prompt'), scope),
              surface: 'workflow',
              confirmationOverride: node.confirmation,
            })
          : await this.executor.startToolRun({
              orgId: run.orgId,
              userId: run.userId,
              ownerId: run.workflowId,
              ownerUserId: run.userId,
              name: `workflow node ${node.id}`,
              surface: 'workflow',
              ...toolCallOf(node, scope),
              hooksConfig: node.hooks,
              confirmation: node.confirmation,
            });
      agentRunId = started.runId;
      completion = started.completion;
      // Not recorded (the workflow run was cancelled or taken over meanwhile): the run just started is nobody's.
      await this.leases
        .setNode(run, node.id, { status: 'running', agent_run_id: agentRunId }, 'node_agent_started')
        .catch(async (err: unknown) => {
          await this.executor.cancel(started.runId).catch(() => undefined);
          throw err;
        });
    }
    const outcome = await this.watchAgentRun(run, node.id, agentRunId, completion);
    if (this.leases.signalOf(run.id).aborted) return;
    await this.settleFromRun(run, node, agentRunId, outcome);
  }

  /**
   * Mirrors the run's approvals onto the node (`waiting` while one is pending) by following the run's own event
   * stream — woken by its events, not by polling — until the run is done.
   */
  private async watchAgentRun(
    run: WorkflowRun,
    nodeId: string,
    agentRunId: string,
    completion: Promise<RunOutcome>,
  ): Promise<RunOutcome> {
    const pending = new Set<unknown>();
    let mirrored: Promise<void> = Promise.resolve();
    const mirror = (waiting: boolean) => {
      const status = waiting ? 'waiting' : 'running';
      mirrored = mirrored.then(async () => {
        if (run.nodes[nodeId].status !== status)
          await this.leases.setNode(
            run,
            nodeId,
            { ...run.nodes[nodeId], status },
            waiting ? 'node_waiting' : 'node_resumed',
          );
      });
      // A refused write is thrown below, once the follow has stopped; until then it is not an unhandled rejection.
      mirrored.catch(() => undefined);
    };
    await this.agentRunEvents.follow(
      agentRunId,
      0,
      (event) => {
        if (event.type === 'confirmation_pending') pending.add(event.data.confirmation_id);
        else if (event.type === 'confirmation_resolved') pending.delete(event.data.confirmation_id);
        else return;
        mirror(pending.size > 0);
      },
      this.leases.signalOf(run.id),
    );
    await mirrored;
    // A local drive that stopped without ending the run (lease lost, database blip) settles with an active status:
    // the run goes on elsewhere, so its end is read from its row.
    const outcome = await completion;
    return outcome.status === 'running' || outcome.status === 'waiting'
      ? this.executor.waitForRun(agentRunId, this.leases.signalOf(run.id))
      : outcome;
  }

  /**
   * A run that ended with a blocked tool call (a rejection, a hook) fails its node, with the reason shown; so does a
   * CONNECTOR node whose call failed (non-2xx, timeout, interrupted).
   */
  private async settleFromRun(
    run: WorkflowRun,
    node: WorkflowNode,
    agentRunId: string,
    outcome: RunOutcome,
  ): Promise<void> {
    const nodeId = node.id;
    if (outcome.status !== 'completed') {
      return this.leases.setNode(
        run,
        nodeId,
        { status: 'failed', agent_run_id: agentRunId, error: outcome.error ?? `run ${outcome.status}` },
        'node_failed',
      );
    }
    const observations = (await this.agentRunEvents.list(agentRunId, 0, ['observation'])).filter(
      (e) => e.data.run_id === agentRunId,
    );
    const failed =
      observations.find((e) => e.data.blocked) ??
      (node.type === 'connector' ? observations.find((e) => e.data.ok === false) : undefined);
    if (failed) {
      return this.leases.setNode(
        run,
        nodeId,
        { status: 'failed', agent_run_id: agentRunId, output: outcome.answer, error: failed.data.content },
        'node_failed',
      );
    }
    const output = node.type === 'agent' ? outcome.answer : parseJsonOrText(outcome.answer);
    await this.leases.setNode(run, nodeId, { status: 'completed', agent_run_id: agentRunId, output }, 'node_completed');
  }
}

/** The one call of a CONNECTOR node (its tool), or of a HUMAN node (`ask_human` with the question and form). */
function toolCallOf(
  node: WorkflowNode,
  scope: Record<string, unknown>,
): { tool: string; args: Record<string, unknown> } {
  if (node.type === 'human') {
    return {
      tool: 'ask_human',
      args: { question: renderTemplate(nodeField(node, 'question'), scope), ...(node.form ? { form: node.form } : {}) },
    };
  }
  return { tool: nodeField(node, 'tool'), args: renderArgs(node.args ?? {}, scope) };
}

/** A connector's JSON response becomes structured output, so conditions can read `nodes.pay.output.status`. */
function parseJsonOrText(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
