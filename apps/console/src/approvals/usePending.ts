import { useQuery } from '@tanstack/react-query';
import { data, http, type Schemas } from '../api/typed';
import type { ConfirmationRow } from './Approvals';

export type Me = Schemas['MeResponse'];

export const useMe = () => useQuery({ queryKey: ['me'], queryFn: () => data(http.GET('/api/me')), staleTime: 60_000 });

/** user id -> a name a person recognises (requests carry user ids). */
export function useMemberNames(): (userId: string | null) => string {
  const members = useQuery({ queryKey: ['users'], queryFn: () => data(http.GET('/api/users')), staleTime: 30_000 });
  return (id) => {
    const m = members.data?.find((x) => x.user_id === id);
    return m ? m.name ?? m.sub : id ?? 'unknown';
  };
}

/**
 * Whether the approver policy lets me decide this request, as far as the console can tell; the server applies the
 * policy on every decision anyway (a request the console shows by mistake is a 403 with the reason).
 */
export function mayDecide(row: ConfirmationRow, me: Me | undefined): boolean {
  if (!me) return false;
  if (row.forbid_self_approval && row.requested_by === me.user_id) return false;
  switch (row.approver_scope) {
    case 'org_admins': return me.roles.includes('admin');
    case 'initiator': return row.requested_by === me.user_id;
    default: return true;
  }
}

/** Pending requests of the org, refreshed every second (the inbox updates without a reload), and those for me. */
export function usePending(intervalMs = 1000) {
  const me = useMe();
  const pending = useQuery({
    queryKey: ['confirmations', 'pending'],
    queryFn: () => data(http.GET('/api/confirmations', { params: { query: { status: 'pending' } } })),
    refetchInterval: intervalMs,
  });
  const forMe = (pending.data ?? []).filter((r) => mayDecide(r, me.data));
  return { pending, forMe };
}
