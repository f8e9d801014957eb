import { useCallback, useEffect, useRef, useState } from 'react';
import { openStream } from '../api/client';
import { data, http } from '../api/typed';
import { readEvents, type RunStreamEvent } from '../api/sse';
import { isFinished, lastEventId } from './run-model';

export interface Turn {
  message: string;
  runId?: string;
  events: RunStreamEvent[];
  failed?: string;
}
export interface Conversation {
  conversationId?: string;
  turns: Turn[];
  readOnly?: boolean;
}

/**
 * One conversation with an agent. A stored conversation (`conversationId`) is loaded from the server with every
 * event of its runs and an unfinished run is reattached after its last event (Last-Event-ID), so a reload or another
 * session shows the same run without losing or repeating events. `onStarted` gets the id of a new conversation.
 */
export function useConversation(agentId: string, conversationId: string | undefined, onStarted: (id: string) => void) {
  const [conv, setConv] = useState<Conversation>({ turns: [] });
  const [loadError, setLoadError] = useState<string>();
  const current = useRef(conv);
  current.current = conv;
  const abort = useRef<AbortController | null>(null);
  const started = useRef(onStarted);
  started.current = onStarted;

  const updateLast = useCallback((fn: (t: Turn) => Turn) => {
    setConv((c) => ({ ...c, turns: c.turns.map((t, i) => (i === c.turns.length - 1 ? fn(t) : t)) }));
  }, []);

  const consume = useCallback(
    async (res: Response, signal: AbortSignal) => {
      await readEvents(res, (event) => {
        if (signal.aborted) return;
        const e = event as RunStreamEvent; // a run's stream carries run events only
        if (e.event === 'run' && !e.data.parent_call_id) {
          const { conversation_id: conversationId, run_id: runId } = e.data;
          if (!current.current.conversationId && conversationId) {
            current.current = { ...current.current, conversationId };
            setConv((c) => ({ ...c, conversationId }));
            started.current(conversationId);
          }
          updateLast((t) => ({ ...t, runId: t.runId ?? runId }));
        }
        // A replay after Last-Event-ID never repeats an event, but two attaches (StrictMode) could overlap.
        updateLast((t) => (e.id && t.events.some((x) => x.id === e.id) ? t : { ...t, events: [...t.events, e] }));
      });
    },
    [updateLast],
  );

  const stream = useCallback(
    async (open: (signal: AbortSignal) => Promise<Response>) => {
      abort.current?.abort();
      const ctl = new AbortController();
      abort.current = ctl;
      try {
        await consume(await open(ctl.signal), ctl.signal);
      } catch (err) {
        if (!ctl.signal.aborted) updateLast((t) => ({ ...t, failed: (err as Error).message }));
      }
    },
    [consume, updateLast],
  );

  useEffect(() => {
    // The conversation this page just started: already on screen, streaming.
    if (conversationId && current.current.conversationId === conversationId) return;
    abort.current?.abort();
    setLoadError(undefined);
    setConv({ turns: [] });
    if (!conversationId) return;
    let cancelled = false;
    data(http.GET('/api/conversations/{id}', { params: { path: { id: conversationId } } })).then(
      (c) => {
        if (cancelled) return;
        const turns: Turn[] = c.runs.map((r) => ({
          message: r.message,
          runId: r.id,
          events: r.events as RunStreamEvent[],
        }));
        setConv({ conversationId: c.id, turns, readOnly: !c.can_continue });
        const last = turns.at(-1);
        if (last?.runId && !isFinished(last.events)) {
          void stream((signal) =>
            openStream('GET', `/runs/${last.runId}/events`, { lastEventId: lastEventId(last.events), signal }),
          );
        }
      },
      (err: unknown) => !cancelled && setLoadError((err as Error).message),
    );
    return () => {
      cancelled = true;
    };
  }, [agentId, conversationId, stream]);

  useEffect(() => () => abort.current?.abort(), []);

  const send = useCallback(
    async (message: string) => {
      setConv((c) => ({ ...c, turns: [...c.turns, { message, events: [] }] }));
      const body = { agent_id: agentId, message, conversation_id: current.current.conversationId };
      await stream((signal) => openStream('POST', '/chat', { body, signal }));
    },
    [agentId, stream],
  );

  const cancel = useCallback(async (runId: string) => {
    await data(http.POST('/api/runs/{id}/cancel', { params: { path: { id: runId } } }));
  }, []);

  return { conv, loadError, send, cancel };
}
