import { useQuery } from '@tanstack/react-query';
import { data, http, type Schemas } from '../api/typed';

export type Me = Schemas['MeResponse'];

export const useMe = () => useQuery({ queryKey: ['me'], queryFn: () => data(http.GET('/api/me')), staleTime: 60_000 });

/** user id -> a name a person recognises (requests carry user ids). */
export function useMemberNames(): (userId: string | null) => string {
  const members = useQuery({ queryKey: ['users'], queryFn: () => data(http.GET('/api/users')), staleTime: 30_000 });
  return (id) => {
    const m = members.data?.find((x) => x.user_id === id);
    return m ? (m.name ?? m.sub) : (id ?? 'unknown');
  };
}
