import { useMutation, useQueryClient } from '@tanstack/react-query';
import { data, http } from '../api/typed';
import { toastError } from '../ui/errors';
import type { ConfirmationRow } from './Approvals';

/**
 * "Approve all" of one model turn's gated calls: each approved on its own (a refusal of one is toasted, not fatal);
 * `onApproved` runs even if the card that asked has left the list meanwhile.
 */
export function useApproveTurn(turn: ConfirmationRow[], onApproved: () => void) {
  const queries = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      await Promise.all(
        turn.map((r) =>
          data(
            http.POST('/api/confirmations/{id}/decision', {
              params: { path: { id: r.id } },
              body: { decision: 'approve' },
            }),
          ).catch((err: unknown) => toastError(`${r.tool} was not approved`, err)),
        ),
      );
    },
    onSuccess: onApproved,
    onSettled: () => queries.invalidateQueries({ queryKey: ['confirmations'] }),
  });
}
