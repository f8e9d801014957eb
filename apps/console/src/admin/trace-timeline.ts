import type {
  RunEventMap,
  RunEventTokenUsage,
  RunEventType,
} from '../../../../libs/common/src/run-events/run-event-map';

/** One line of a run's timeline, in the order things happened. */
export interface TimelineStep {
  kind: 'model turn' | 'tool call' | 'hook' | 'approval' | 'observation' | 'plan' | 'error';
  title: string;
  outcome?: string;
  durationMs?: number;
  detail?: string;
  /** When it happened (ISO 8601): the event's time; a model turn's is when its reply arrived. */
  at?: string;
  /** A model turn's (or plan's) tokens, as the model server reported them. */
  tokens?: RunEventTokenUsage;
}

/** The run's start and end, so that the first and the last model turns get a duration too. */
export interface RunSpan {
  createdAt?: string;
  finishedAt?: string | null;
}

/**
 * A trace entry (`{ seq, type, ...data, at }`), typed by the run event map. Entries are stored JSON and may be older
 * than the map, so the fields read with a fallback are read through `Partial` (`stored`).
 */
type Entry = { [K in RunEventType]: { type: K } & RunEventMap[K] }[RunEventType];
const stored = <T extends object>(d: T): Partial<T> => d;

/**
 * Folds a run's trace (GET /api/runs/:id: tool calls, hooks, approvals, observations) into a timeline with the model
 * turns made visible: the tool calls one model response proposed arrive together, so each group is one turn, and a
 * completed run's answer is its last turn.
 */
export function traceTimeline(
  entries: Array<Record<string, unknown>>,
  answer: string | null | undefined,
  span: RunSpan = {},
): TimelineStep[] {
  const trace = entries as unknown as Entry[];
  const at = (j: number): Entry | undefined => trace[j];
  const timeOf = (j: number) => (trace[j] as { at?: string } | undefined)?.at;
  const steps: TimelineStep[] = [];
  let turn = 0;
  let answered = false as boolean; // set inside the loop's callback, which narrowing does not see
  // A model turn lasts from the last thing before it (the run's start, an observation) until its reply arrived.
  const since = (i: number, end: string | undefined) => {
    const start = i > 0 ? timeOf(i - 1) : span.createdAt;
    return start && end ? Math.max(0, Date.parse(end) - Date.parse(start)) : undefined;
  };
  trace.forEach((e, i) => {
    const type = stored(e).type ?? '';
    const when = timeOf(i);
    if (type === 'tool_call' && at(i - 1)?.type !== 'tool_call') {
      const proposed: string[] = [];
      for (let j = i, next = at(j); next?.type === 'tool_call'; next = at(++j)) proposed.push(next.tool);
      steps.push({
        kind: 'model turn',
        title: `Model turn ${++turn}`,
        detail: `proposed ${proposed.join(', ')}`,
        at: when,
        durationMs: since(i, when),
        tokens: e.type === 'tool_call' ? e.usage : undefined,
      });
    }
    const before = steps.length;
    if (e.type === 'tool_call') steps.push({ kind: 'tool call', title: e.tool, detail: JSON.stringify(e.args) });
    else if (e.type === 'hook') {
      steps.push({
        kind: 'hook',
        title: `${e.hook} · ${e.point}`,
        outcome: e.outcome,
        durationMs: e.duration_ms,
        detail: (stored(e).side_effects ?? []).join('; ') || undefined,
      });
    } else if (e.type === 'confirmation_pending')
      steps.push({
        kind: 'approval',
        title: `${e.tool} waits for approval`,
        outcome: 'pending',
        detail: `expires ${e.expires_at}`,
      });
    else if (e.type === 'confirmation_resolved')
      steps.push({
        kind: 'approval',
        title: 'approval decided',
        outcome: e.status,
        detail: e.responded_by ? `by ${e.responded_by}` : undefined,
      });
    else if (e.type === 'observation')
      steps.push({
        kind: 'observation',
        title: e.tool,
        outcome: e.blocked ? `blocked${e.blocked_by ? ` by ${e.blocked_by}` : ''}` : 'done',
        detail: (stored(e).content ?? '').slice(0, 300),
      });
    else if (e.type === 'answer') {
      answered = true;
      const answerTurn = {
        kind: 'model turn' as const,
        title: `Model turn ${++turn}`,
        outcome: 'answered',
        durationMs: since(i, when),
      };
      steps.push({ ...answerTurn, detail: e.content.slice(0, 300), tokens: stored(e).usage });
    } else if (e.type === 'plan')
      steps.push({ kind: 'plan', title: type, detail: JSON.stringify(e.steps).slice(0, 300), tokens: stored(e).usage });
    else if (e.type === 'plan_rejected')
      steps.push({ kind: 'plan', title: type, detail: JSON.stringify(e).slice(0, 300) });
    else if (e.type === 'error') steps.push({ kind: 'error', title: 'error', detail: stored(e).message ?? '' });
    for (const s of steps.slice(before)) s.at = when;
  });
  // Runs stored before the trace carried the answer: the run's answer is its last turn, at its end.
  if (!answered && answer !== null && answer !== undefined) {
    const end = span.finishedAt ?? undefined;
    steps.push({
      kind: 'model turn',
      title: `Model turn ${turn + 1}`,
      outcome: 'answered',
      detail: answer.slice(0, 300),
      at: end,
      durationMs: since(trace.length, end),
    });
  }
  return steps;
}
