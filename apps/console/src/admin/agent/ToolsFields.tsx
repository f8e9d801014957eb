import { Group, MultiSelect, NumberInput, Stack, Switch, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { data, http } from '../../api/typed';
import { asError, numberOr, problemsAt, stringList, withKey, type ConfigJson } from './agent-config';

/** The tool names the org has: every connector action and every discovered MCP tool. */
function useToolCatalog() {
  const connectors = useQuery({ queryKey: ['connectors'], queryFn: () => data(http.GET('/api/connectors')) });
  const mcp = useQuery({ queryKey: ['mcp-servers'], queryFn: () => data(http.GET('/api/mcp-servers')) });
  return [
    ...(connectors.data ?? []).map((c) => ({ group: `Connector ${c.name}`, items: c.tools })),
    ...(mcp.data ?? []).map((s) => ({ group: `MCP ${s.name}`, items: s.tools.map((t) => t.name) })),
  ].filter((g) => g.items.length > 0);
}

/** Tools (from the catalog), delegates (other agents, by name), iterations, and "every call needs approval". */
export function ToolsFields(props: {
  config: ConfigJson;
  onChange: (c: ConfigJson) => void;
  problems: string[];
  agentId?: string;
}) {
  const { config, onChange, problems } = props;
  const catalog = useToolCatalog();
  const agents = useQuery({ queryKey: ['agents'], queryFn: () => data(http.GET('/api/agents')) });
  const tools = stringList(config.tools);
  const known = new Set(catalog.flatMap((g) => g.items));
  // A saved pattern (e.g. `erp__*`) or a built-in tool is kept as an option of its own.
  const toolData = [
    ...catalog,
    ...(tools.some((t) => !known.has(t)) ? [{ group: 'Other', items: tools.filter((t) => !known.has(t)) }] : []),
  ];
  const delegates = stringList(config.delegates);
  const others = (agents.data ?? []).filter((a) => a.id !== props.agentId);
  const delegateData = [
    ...others.map((a) => ({ value: a.id, label: a.name })),
    ...delegates.filter((d) => !others.some((a) => a.id === d)).map((d) => ({ value: d, label: `${d} (unknown)` })),
  ];
  const set = (key: string, value: unknown) => onChange(withKey(config, key, value));
  return (
    <Stack gap="xs">
      <Title order={4}>Tools and delegation</Title>
      <MultiSelect
        label="Tools"
        description="Connector actions and MCP tools the agent may call"
        data={toolData}
        value={tools}
        onChange={(v) => set('tools', v)}
        searchable
        placeholder={tools.length ? undefined : 'Pick tools'}
        error={asError(problemsAt(problems, /^unknown tool\b/, /^model_config_json\.tools\b/))}
      />
      <MultiSelect
        label="Delegates"
        description="Agents this agent may hand a task to"
        data={delegateData}
        value={delegates}
        onChange={(v) => set('delegates', v)}
        searchable
        placeholder={delegates.length ? undefined : 'Pick agents'}
        error={asError(problemsAt(problems, /^unknown delegate\b/, /^delegates? /, /^model_config_json\.delegates\b/))}
      />
      <Group grow align="flex-start">
        <NumberInput
          label="Max iterations"
          description="Model turns per run (1-100)"
          min={1}
          max={100}
          allowDecimal={false}
          value={numberOr(config.max_iterations)}
          onChange={(v) => set('max_iterations', typeof v === 'number' ? v : undefined)}
          error={asError(problemsAt(problems, /^model_config_json\.max_iterations\b/))}
        />
        <Switch
          mt="xl"
          label="Every tool call needs approval"
          checked={config.require_confirmation_for_all === true}
          onChange={(e) => set('require_confirmation_for_all', e.currentTarget.checked || undefined)}
        />
      </Group>
    </Stack>
  );
}
