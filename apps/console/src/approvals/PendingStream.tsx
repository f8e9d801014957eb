import { useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { openStream } from '../api/client';
import { readEvents } from '../api/sse';
import type { Schemas } from '../api/typed';

type ConfirmationRow = Schemas['ConfirmationResponse'];

interface PendingState {
  /** Pending requests the approver policy lets me approve, newest first (the server decides what is "for me"). */
  forMe: ConfirmationRow[];
  /** False until the first snapshot, and while reconnecting. */
  live: boolean;
  /** The last attempt to reach the server failed; retrying with backoff. */
  unreachable: boolean;
}

const Ctx = createContext<PendingState>({ forMe: [], live: false, unreachable: false });

const newestFirst = (rows: Map<string, ConfirmationRow>) =>
  [...rows.values()].sort((a, b) => b.created_at.localeCompare(a.created_at));

/**
 * One stream per tab (`GET /api/confirmations/stream`): a snapshot of "pending for me", then each change as it
 * happens (a request decided, expired, or reassigned away from me leaves the list). Reconnects with backoff and
 * starts again from a fresh snapshot, so nothing is missed while it was away.
 */
export function PendingProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<PendingState>({ forMe: [], live: false, unreachable: false });
  const queries = useQueryClient();

  useEffect(() => {
    const ctl = new AbortController();
    let retryMs = 1000;
    const rows = new Map<string, ConfirmationRow>();
    // A function, not the property: the signal is aborted from outside while this loop awaits.
    const aborted = () => ctl.signal.aborted;
    const run = async () => {
      while (!aborted()) {
        try {
          const res = await openStream('GET', '/confirmations/stream', { signal: ctl.signal });
          await readEvents(res, (e) => {
            if (e.event === 'snapshot') {
              rows.clear();
              for (const r of (e.data as { rows: ConfirmationRow[] }).rows) rows.set(r.id, r);
              retryMs = 1000;
            } else if (e.event === 'confirmation' || e.event === 'withdrawn') {
              // `withdrawn` { id }: no longer mine to decide (reassigned to someone else).
              const row = e.data as ConfirmationRow;
              if (e.event === 'confirmation' && row.status === 'pending') rows.set(row.id, row);
              else rows.delete(row.id);
              // Decided history and the other lists follow the same change (one refetch, no polling).
              void queries.invalidateQueries({ queryKey: ['confirmations'] });
            }
            setState({ forMe: newestFirst(rows), live: true, unreachable: false });
          });
        } catch {
          /* reconnect below */
        }
        if (aborted()) return;
        setState((s) => ({ ...s, live: false, unreachable: true }));
        await new Promise((r) => setTimeout(r, retryMs));
        retryMs = Math.min(retryMs * 2, 15_000);
      }
    };
    void run();
    return () => ctl.abort();
  }, [queries]);

  return <Ctx.Provider value={state}>{children}</Ctx.Provider>;
}

export const usePendingForMe = () => useContext(Ctx);
