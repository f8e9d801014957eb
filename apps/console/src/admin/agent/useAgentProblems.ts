import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { data, http } from '../../api/typed';
import type { ConfigJson } from './agent-config';

/** A value that follows `value` once it has stopped changing for `ms` (so the server is asked once per pause). */
export function useDebounced<T>(value: T, ms = 350): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/**
 * What saving this config would refuse, asked of the server (POST /api/agents/validate) as the admin types: the
 * same checks as Save (CEL, YAML hooks, tools, delegates, keys), so errors show at the field, not after Save.
 */
export function useAgentProblems(config: ConfigJson | null, agentId: string | undefined) {
  const settled = useDebounced(config);
  const problems = useQuery({
    queryKey: ['agent-problems', agentId ?? 'new', settled],
    queryFn: () =>
      data(
        http.POST('/api/agents/validate', {
          body: { model_config_json: settled ?? {}, ...(agentId ? { agent_id: agentId } : {}) },
        }),
      ),
    enabled: settled !== null,
    placeholderData: (previous) => previous,
    staleTime: 30_000,
  });
  return { problems: problems.data?.problems ?? [], checking: problems.isFetching, error: problems.error };
}
