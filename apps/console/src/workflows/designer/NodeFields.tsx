import { Select, Stack, TagsInput, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { data, http } from '../../api/typed';
import type { WfNode } from '../graph';
import { ArgsForm } from './ArgsForm';
import { FormBuilder } from './FormBuilder';
import { TemplateInput } from './TemplateInput';

type Set = (patch: Record<string, unknown>) => void;
const text = (v: unknown) => (typeof v === 'string' ? v : '');

/** The fields of one node, by its type. */
export function NodeFields({ node, set, suggestions }: { node: WfNode; set: Set; suggestions: string[] }) {
  switch (node.type) {
    case 'start':
      return (
        <TagsInput
          label="Run inputs"
          description="Names a run is started with; templates read them as {{inputs.<name>}}. Type a name, press Enter."
          value={Array.isArray(node.inputs) ? (node.inputs as string[]) : []}
          onChange={(inputs) => set({ inputs })}
        />
      );
    case 'agent':
      return <AgentFields node={node} set={set} suggestions={suggestions} />;
    case 'connector':
      return <ConnectorFields node={node} set={set} suggestions={suggestions} />;
    case 'human':
      return (
        <Stack gap="xs">
          <TemplateInput
            label="Question"
            value={text(node.question)}
            onChange={(question) => set({ question })}
            suggestions={suggestions}
          />
          <FormBuilder form={node.form} onChange={(form) => set({ form })} />
        </Stack>
      );
    case 'condition':
      return (
        <TextInput
          label="Expression (CEL)"
          description="Over inputs and nodes, e.g. nodes.review.output.approved == true; its value is the node's output"
          value={text(node.expression)}
          onChange={(e) => set({ expression: e.currentTarget.value })}
        />
      );
    default:
      return (
        <Text size="sm" c="gray.7">
          The run is done when it reaches this node.
        </Text>
      );
  }
}

function AgentFields({ node, set, suggestions }: { node: WfNode; set: Set; suggestions: string[] }) {
  const agents = useQuery({ queryKey: ['agents'], queryFn: () => data(http.GET('/api/agents')) });
  const options = (agents.data ?? []).map((a) => ({ value: a.id, label: a.name }));
  const id = text(node.agent_id);
  if (id && agents.data && !options.some((o) => o.value === id))
    options.push({ value: id, label: `unknown agent ${id}` });
  return (
    <Stack gap="xs">
      <Select
        label="Agent"
        placeholder={agents.isLoading ? 'Loading agents…' : 'Choose an agent'}
        data={options}
        value={id || null}
        searchable
        onChange={(v) => set({ agent_id: v ?? undefined })}
      />
      <TemplateInput
        label="Prompt"
        value={text(node.prompt)}
        onChange={(prompt) => set({ prompt })}
        suggestions={suggestions}
      />
    </Stack>
  );
}

function ConnectorFields({ node, set, suggestions }: { node: WfNode; set: Set; suggestions: string[] }) {
  const tools = useQuery({ queryKey: ['workflow-tools'], queryFn: () => data(http.GET('/api/workflow-tools')) });
  const tool = tools.data?.find((t) => t.name === node.tool);
  const groups = [...new Set((tools.data ?? []).map((t) => t.source))].map((source) => ({
    group: source,
    items: (tools.data ?? [])
      .filter((t) => t.source === source)
      .map((t) => ({ value: t.name, label: `${t.source} · ${t.action}` })),
  }));
  const args = node.args && typeof node.args === 'object' ? (node.args as Record<string, unknown>) : {};
  return (
    <Stack gap="xs">
      <Select
        label="Action"
        placeholder={tools.isLoading ? 'Loading actions…' : 'Choose a connector action'}
        data={groups}
        value={text(node.tool) || null}
        searchable
        onChange={(v) => set({ tool: v ?? undefined, args: {} })}
        description={tool ? `${tool.description}${tool.write ? ' (writes)' : ''}` : undefined}
      />
      {tool && (
        <ArgsForm schema={tool.parameters} args={args} onChange={(a) => set({ args: a })} suggestions={suggestions} />
      )}
    </Stack>
  );
}
