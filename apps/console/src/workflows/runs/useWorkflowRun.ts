import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { openStream } from '../../api/client';
import { readEvents, type StreamEvent } from '../../api/sse';
import { data, http, type Schemas } from '../../api/typed';

export type NodeState = Schemas['WorkflowNodeStateResponse'];
const ENDED = ['completed', 'failed', 'cancelled'];

/**
 * A workflow run, live: its row once, then its event stream (`GET /api/workflow-runs/:id/events`, replayed from the
 * start) sets each node's state as it changes and the run's status at `done`.
 */
export function useWorkflowRun(runId: string) {
  const run = useQuery({
    queryKey: ['workflow-run', runId],
    queryFn: () => data(http.GET('/api/workflow-runs/{id}', { params: { path: { id: runId } } })),
  });
  const [nodes, setNodes] = useState<Record<string, NodeState>>({});
  const [end, setEnd] = useState<{ status: string; error: string | null } | null>(null);
  const [streamError, setStreamError] = useState<Error | null>(null);
  const { refetch } = run;
  useEffect(() => {
    const stop = new AbortController();
    const onEvent = (e: StreamEvent) => {
      const d = e.data as { node_id?: string; status?: string; error?: string | null } & NodeState;
      if (e.event === 'done') setEnd({ status: d.status, error: d.error ?? null });
      else if (d.node_id) {
        const { node_id: id, ...state } = d;
        setNodes((n) => ({ ...n, [id]: state }));
      }
    };
    openStream('GET', `/workflow-runs/${runId}/events`, { signal: stop.signal })
      .then((res) => readEvents(res, onEvent))
      .then(() => refetch())
      .catch((err: unknown) => {
        if (!stop.signal.aborted) setStreamError(err as Error);
      });
    return () => stop.abort();
  }, [runId, refetch]);
  const status =
    end?.status ?? (run.data && ENDED.includes(run.data.status) ? run.data.status : (run.data?.status ?? ''));
  const anyWaiting = Object.values({ ...run.data?.nodes, ...nodes }).some((s) => s.status === 'waiting');
  return {
    run,
    nodes: { ...run.data?.nodes, ...nodes },
    status: !end && status === 'running' && anyWaiting ? 'waiting' : status,
    error: end?.error ?? run.data?.error ?? null,
    streamError,
  };
}
