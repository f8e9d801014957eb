import { Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { data, http } from '../../api/typed';
import { useDebounced } from './useAgentProblems';

/**
 * A tier condition (CEL over `args`), checked and evaluated on the example args by the server as it is typed
 * (POST /api/hooks/cel-check): the server is the one CEL evaluator; the browser only shows its answer.
 */
export function CelField(props: {
  label: string;
  value: string;
  example: Record<string, unknown> | null;
  onChange: (v: string) => void;
  extraError?: string;
}) {
  const expression = useDebounced(props.value);
  const args = useDebounced(props.example);
  const check = useQuery({
    queryKey: ['cel-check', expression, args],
    queryFn: () => data(http.POST('/api/hooks/cel-check', { body: { expression, args: args ?? {} } })),
    enabled: expression.trim() !== '',
    placeholderData: (previous) => previous,
    staleTime: 60_000,
  });
  const answer = expression.trim() === '' ? undefined : check.data;
  const error = props.value.trim() === '' ? 'Required: a condition on args' : (answer?.problem ?? props.extraError);
  let verdict = '';
  if (answer?.valid && props.example) {
    verdict = answer.holds ? 'Applies to the example args' : 'Does not apply to the example args';
    if (answer.error) verdict = `Applies (fail closed): ${answer.error}`;
  }
  return (
    <div>
      <TextInput
        label={props.label}
        value={props.value}
        onChange={(e) => props.onChange(e.currentTarget.value)}
        error={error}
        styles={{ input: { fontFamily: 'monospace' } }}
        placeholder="args.amount > 50000"
      />
      {verdict && (
        <Text size="xs" mt={4} c={answer?.holds ? 'orange.9' : 'gray.7'} role="status">
          {verdict}
        </Text>
      )}
    </div>
  );
}
