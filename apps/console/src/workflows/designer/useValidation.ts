import { useDebouncedValue } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { data, http } from '../../api/typed';
import type { WfDefinition } from '../graph';

/** The server's problems with the definition as drawn (what a save would refuse), checked shortly after each change. */
export function useValidation(def: WfDefinition, enabled: boolean): { problems: string[]; checking: boolean } {
  const [settled] = useDebouncedValue(def, 300);
  const check = useQuery({
    queryKey: ['workflow-validate', JSON.stringify(settled)],
    queryFn: () => data(http.POST('/api/workflows/validate', { body: { definition: settled as never } })),
    enabled,
    staleTime: Infinity,
    placeholderData: (previous) => previous,
  });
  return { problems: check.data?.problems ?? [], checking: check.isFetching || settled !== def };
}
