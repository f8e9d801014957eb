import { useEffect, useState } from 'react';
import { openStream } from '../../api/client';
import { readEvents, type StreamEvent } from '../../api/sse';

/** Every event of a node's agent run (`GET /api/runs/:id/events`), replayed and then live while it is shown. */
export function useAgentRunEvents(agentRunId: string | undefined): { events: StreamEvent[]; error: Error | null } {
  const [events, setEvents] = useState<StreamEvent[]>([]);
  const [error, setError] = useState<Error | null>(null);
  useEffect(() => {
    setEvents([]);
    setError(null);
    if (!agentRunId) return;
    const stop = new AbortController();
    openStream('GET', `/runs/${agentRunId}/events`, { signal: stop.signal })
      .then((res) => readEvents(res, (e) => setEvents((list) => [...list, e])))
      .catch((err: unknown) => {
        if (!stop.signal.aborted) setError(err as Error);
      });
    return () => stop.abort();
  }, [agentRunId]);
  return { events, error };
}
