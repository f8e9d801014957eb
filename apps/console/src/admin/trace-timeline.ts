/** One line of a run's timeline, in the order things happened. */
export interface TimelineStep {
  kind: 'model turn' | 'tool call' | 'hook' | 'approval' | 'observation' | 'plan' | 'error';
  title: string;
  outcome?: string;
  durationMs?: number;
  detail?: string;
}

type Entry = Record<string, any>;

/**
 * Folds a run's trace (GET /api/runs/:id: tool calls, hooks, approvals, observations) into a timeline with the model
 * turns made visible: the tool calls one model response proposed arrive together, so each group is one turn, and a
 * completed run's answer is its last turn.
 */
export function traceTimeline(trace: Entry[], answer: string | null): TimelineStep[] {
  const steps: TimelineStep[] = [];
  let turn = 0;
  trace.forEach((e, i) => {
    const type = String(e.type ?? '');
    if (type === 'tool_call' && trace[i - 1]?.type !== 'tool_call') {
      const proposed: string[] = [];
      for (let j = i; trace[j]?.type === 'tool_call'; j++) proposed.push(trace[j].tool);
      steps.push({ kind: 'model turn', title: `Model turn ${++turn}`, detail: `proposed ${proposed.join(', ')}` });
    }
    if (type === 'tool_call') steps.push({ kind: 'tool call', title: e.tool, detail: JSON.stringify(e.args) });
    else if (type === 'hook') {
      steps.push({
        kind: 'hook',
        title: `${e.hook} · ${e.point}`,
        outcome: e.outcome,
        durationMs: e.duration_ms,
        detail: (e.side_effects ?? []).join('; ') || undefined,
      });
    } else if (type === 'confirmation_pending')
      steps.push({ kind: 'approval', title: `${e.tool} waits for approval`, outcome: 'pending', detail: `expires ${e.expires_at}` });
    else if (type === 'confirmation_resolved')
      steps.push({
        kind: 'approval',
        title: 'approval decided',
        outcome: e.status,
        detail: e.responded_by ? `by ${e.responded_by}` : undefined,
      });
    else if (type === 'observation')
      steps.push({
        kind: 'observation',
        title: e.tool,
        outcome: e.blocked ? `blocked${e.blocked_by ? ` by ${e.blocked_by}` : ''}` : 'done',
        detail: String(e.content ?? '').slice(0, 300),
      });
    else if (type === 'plan' || type === 'plan_rejected')
      steps.push({ kind: 'plan', title: type, detail: JSON.stringify(e).slice(0, 300) });
    else if (type === 'error') steps.push({ kind: 'error', title: 'error', detail: String(e.message ?? '') });
  });
  if (answer !== null && answer !== undefined)
    steps.push({ kind: 'model turn', title: `Model turn ${turn + 1}`, outcome: 'answered', detail: answer.slice(0, 300) });
  return steps;
}
