import { useQuery } from '@tanstack/react-query';
import { data, http } from '../api/typed';

/** The org's agents as Select options (id → name). */
export function useAgentOptions(): Array<{ value: string; label: string }> {
  const agents = useQuery({ queryKey: ['agents'], queryFn: () => data(http.GET('/api/agents')) });
  return (agents.data ?? []).map((a) => ({ value: a.id, label: a.name }));
}

/** The org's members as Select options (user id → name and sub). */
export function useMemberOptions(): Array<{ value: string; label: string }> {
  const users = useQuery({ queryKey: ['users'], queryFn: () => data(http.GET('/api/users')) });
  return (users.data ?? []).map((u) => ({ value: u.user_id, label: u.name ? `${u.name} (${u.sub})` : u.sub }));
}
