import type { RunEventData } from '../../../../libs/common/src/run-events/run-event-map';
import type { RunStreamEvent } from '../api/sse';
import { asText } from '../ui/as-text';

export interface HookView {
  hook: string;
  point: string;
  outcome: string;
  durationMs?: number;
  sideEffects: string[];
}
export interface ToolCallView {
  callId: string;
  tool: string;
  /** The args that run: the model's, or an approver's edit once approved with changes. */
  args: Record<string, unknown>;
  /** Approved with changes: what the model proposed. */
  proposedArgs?: Record<string, unknown>;
  hooks: HookView[];
  pending?: { confirmationId: string; expiresAt: string; channel?: { type?: string | null; name?: string | null } };
  resolved?: { status: string; respondedBy?: string | null };
  observation?: { content: string; blocked: boolean; blockedBy?: string; args?: Record<string, unknown> };
  /** The run ended (cancelled, failed, refused…) while this call still waited: its wait is over too. */
  endedWith?: string;
}
export interface RunView {
  runId?: string;
  conversationId?: string | null;
  calls: ToolCallView[];
  sessionHooks: HookView[];
  answer: string;
  status?: string;
  errors: string[];
}

/**
 * Events are stored and replayed: one written by an older server may lack a field the map now requires, so the fold
 * reads such fields through this view and keeps its fallbacks.
 */
const stored = <T extends object>(d: T): Partial<T> => d;

const hookView = (d: RunEventData<'hook'>): HookView => ({
  hook: d.hook,
  point: d.point,
  outcome: d.outcome,
  durationMs: d.duration_ms,
  sideEffects: stored(d).side_effects ?? [],
});

/** Folds a run's event stream (API.md "Chat (SSE)") into what the chat shows. Pure, so a replay renders the same. */
export function foldRun(events: RunStreamEvent[]): RunView {
  const view: RunView = { calls: [], sessionHooks: [], answer: '', errors: [] };
  const byId = new Map<string, ToolCallView>();
  const call = (id: string, tool = '') => {
    let c = byId.get(id);
    if (!c) {
      c = { callId: id, tool, args: {}, hooks: [] };
      byId.set(id, c);
      view.calls.push(c);
    }
    return c;
  };
  for (const { event, data } of events) {
    switch (event) {
      case 'run':
        view.runId ??= data.run_id;
        view.conversationId ??= data.conversation_id;
        break;
      case 'tool_call':
        Object.assign(call(data.call_id, data.tool), { tool: data.tool, args: stored(data).args ?? {} });
        break;
      case 'hook':
        if (data.call_id) call(data.call_id).hooks.push(hookView(data));
        else view.sessionHooks.push(hookView(data));
        break;
      case 'confirmation_pending':
        call(data.call_id ?? '', data.tool).pending = {
          confirmationId: data.confirmation_id,
          expiresAt: data.expires_at,
          channel: data.channel,
        };
        break;
      case 'confirmation_resolved': {
        const c = call(data.call_id ?? '');
        c.resolved = { status: data.status, respondedBy: data.responded_by };
        if (data.args) Object.assign(c, { proposedArgs: data.original_args ?? c.args, args: data.args });
        break;
      }
      case 'observation':
        call(data.call_id, data.tool).observation = {
          content: stored(data).content ?? '',
          blocked: stored(data).blocked ?? false,
          blockedBy: data.blocked_by,
          args: data.args,
        };
        break;
      case 'answer_delta':
        view.answer += stored(data).content ?? '';
        break;
      case 'answer':
        view.answer = stored(data).content ?? view.answer;
        break;
      case 'done':
        if (!data.run_id || data.run_id === view.runId) view.status = data.status;
        break;
      case 'error':
        // A data line that is not JSON arrives as its text (readEvents).
        view.errors.push(stored(data).message ?? asText(data));
        break;
    }
  }
  if (view.status)
    for (const c of view.calls) if (c.pending && !c.resolved && !c.observation) c.endedWith = view.status;
  return view;
}

export const lastEventId = (events: RunStreamEvent[]) => events.reduce((max, e) => Math.max(max, e.id || 0), 0);
export const isFinished = (events: RunStreamEvent[]) =>
  events.some((e) => e.event === 'done' && !(e.data as RunEventData<'done'> | null)?.parent_call_id);
