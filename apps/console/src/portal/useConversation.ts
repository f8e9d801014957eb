import { useCallback, useEffect, useRef, useState } from 'react';
import { openStream } from '../api/client';
import { data, http } from '../api/typed';
import { readEvents, type StreamEvent } from '../api/sse';
import { isFinished, lastEventId } from './run-model';

export interface Turn { message: string; runId?: string; events: StreamEvent[]; failed?: string }
export interface Conversation { conversationId?: string; turns: Turn[] }

// Kept per tab (sessionStorage): a reload shows what was already received and asks only for the rest (Last-Event-ID).
const key = (agentId: string) => `warden.chat.${agentId}`;
const load = (agentId: string): Conversation => {
  try { return JSON.parse(sessionStorage.getItem(key(agentId)) ?? '') as Conversation; } catch { return { turns: [] }; }
};

/** One agent's conversation: sends messages, streams each run, and reattaches to an unfinished run after a reload. */
export function useConversation(agentId: string) {
  const [conv, setConv] = useState<Conversation>(() => load(agentId));
  const abort = useRef<AbortController | null>(null);

  useEffect(() => { sessionStorage.setItem(key(agentId), JSON.stringify(conv)); }, [agentId, conv]);

  const updateLast = useCallback((fn: (t: Turn) => Turn) => {
    setConv((c) => ({ ...c, turns: c.turns.map((t, i) => (i === c.turns.length - 1 ? fn(t) : t)) }));
  }, []);

  const consume = useCallback(async (res: Response, signal: AbortSignal) => {
    await readEvents(res, (e) => {
      if (signal.aborted) return;
      if (e.event === 'run' && !e.data.parent_call_id) {
        setConv((c) => ({ ...c, conversationId: c.conversationId ?? e.data.conversation_id }));
        updateLast((t) => ({ ...t, runId: t.runId ?? e.data.run_id }));
      }
      // A replay after Last-Event-ID never repeats an event, but two attaches (StrictMode) could overlap.
      updateLast((t) => (e.id && t.events.some((x) => x.id === e.id) ? t : { ...t, events: [...t.events, e] }));
    });
  }, [updateLast]);

  const attach = useCallback(async (runId: string, after: number) => {
    abort.current?.abort();
    const ctl = new AbortController();
    abort.current = ctl;
    try {
      await consume(await openStream('GET', `/runs/${runId}/events`, { lastEventId: after, signal: ctl.signal }), ctl.signal);
    } catch (err) {
      if (!ctl.signal.aborted) updateLast((t) => ({ ...t, failed: (err as Error).message }));
    }
  }, [consume, updateLast]);

  useEffect(() => {
    const last = conv.turns.at(-1);
    if (last?.runId && !isFinished(last.events)) void attach(last.runId, lastEventId(last.events));
    return () => abort.current?.abort();
    // Only on opening the conversation: later runs are streamed by send().
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [agentId]);

  const send = useCallback(async (message: string) => {
    abort.current?.abort();
    const ctl = new AbortController();
    abort.current = ctl;
    setConv((c) => ({ ...c, turns: [...c.turns, { message, events: [] }] }));
    try {
      const res = await openStream('POST', '/chat', { body: { agent_id: agentId, message, conversation_id: conv.conversationId }, signal: ctl.signal });
      await consume(res, ctl.signal);
    } catch (err) {
      if (!ctl.signal.aborted) updateLast((t) => ({ ...t, failed: (err as Error).message }));
    }
  }, [agentId, conv.conversationId, consume, updateLast]);

  const cancel = useCallback(async (runId: string) => { await data(http.POST('/api/runs/{id}/cancel', { params: { path: { id: runId } } })); }, []);
  const reset = useCallback(() => { abort.current?.abort(); setConv({ turns: [] }); }, []);

  return { conv, send, cancel, reset };
}
