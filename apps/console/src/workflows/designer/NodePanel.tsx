import {
  ActionIcon,
  Alert,
  Button,
  Divider,
  Group,
  List,
  Paper,
  Select,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useEffect, useState } from 'react';
import type { WfDefinition, WfNode } from '../graph';
import { ConfirmationFields } from './ConfirmationFields';
import {
  connect,
  connectProblem,
  disconnect,
  idProblem,
  removeNode,
  renameNode,
  setEdgeCondition,
  updateNode,
  upstreamOf,
} from './model';
import { kindOf } from './node-kinds';
import { NodeFields } from './NodeFields';
import { templateSuggestions } from './suggestions';

interface Props {
  def: WfDefinition;
  node: WfNode;
  problems: string[];
  onChange: (def: WfDefinition) => void;
  onSelect: (id: string | null) => void;
}

/** The side panel of the selected node: its id, its fields, its approval policy, where it leads, delete. */
export function NodePanel({ def, node, problems, onChange, onSelect }: Props) {
  const [id, setId] = useState(node.id);
  useEffect(() => setId(node.id), [node.id]);
  const idError = idProblem(def, node.id, id) ?? undefined;
  const commitId = () => {
    if (id === node.id || idError) return;
    onChange(renameNode(def, node.id, id));
    onSelect(id);
  };
  const set = (patch: Record<string, unknown>) => onChange(updateNode(def, node.id, patch));
  const kind = kindOf(node.type);
  return (
    <Paper withBorder p="sm" component="section" aria-label={`Node ${node.id}`}>
      <Stack gap="sm">
        <Title order={3} size="h4">
          {kind.label} node
        </Title>
        <Text size="xs" c="gray.7">
          {kind.hint}
        </Text>
        {problems.length > 0 && (
          <Alert color="red" title="To fix" p="xs">
            <List size="sm">
              {problems.map((p) => (
                <List.Item key={p}>{p}</List.Item>
              ))}
            </List>
          </Alert>
        )}
        <TextInput
          label="Node id"
          description="Templates read its output as {{nodes.<id>.output}}; applied when you leave the field"
          value={id}
          error={idError}
          onChange={(e) => setId(e.currentTarget.value)}
          onBlur={commitId}
          onKeyDown={(e) => e.key === 'Enter' && commitId()}
        />
        <NodeFields node={node} set={set} suggestions={templateSuggestions(def, upstreamOf(def, node.id))} />
        {['agent', 'connector', 'human'].includes(node.type) && (
          <ConfirmationFields
            nodeType={node.type}
            value={node.confirmation}
            onChange={(confirmation) => set({ confirmation })}
          />
        )}
        <Divider />
        <NextNodes def={def} node={node} onChange={onChange} />
        <Button
          color="red.9"
          variant="outline"
          onClick={() => {
            onChange(removeNode(def, node.id));
            onSelect(null);
          }}
        >
          Delete node {node.id}
        </Button>
      </Stack>
    </Paper>
  );
}

/** Where the node leads: each edge (with its optional CEL condition) and a picker to connect another node. */
function NextNodes({
  def,
  node,
  onChange,
}: {
  def: WfDefinition;
  node: WfNode;
  onChange: (def: WfDefinition) => void;
}) {
  const [target, setTarget] = useState<string | null>(null);
  if (node.type === 'end') return null;
  const out = def.edges.filter((e) => e.from === node.id);
  const candidates = def.nodes
    .filter((n) => !connectProblem(def, node.id, n.id))
    .map((n) => ({ value: n.id, label: `${n.id} (${n.type})` }));
  return (
    <Stack gap="xs" role="group" aria-label="Next nodes">
      <Text size="sm" fw={600}>
        Next nodes
      </Text>
      {out.length === 0 && (
        <Text size="sm" c="gray.7">
          None yet: connect one below, or drag from this node&apos;s right handle.
        </Text>
      )}
      {out.map((e) => (
        <Group key={e.to} gap="xs" align="flex-end" wrap="nowrap">
          <TextInput
            label={`Go to ${e.to} when (CEL, optional)`}
            value={e.when ?? ''}
            onChange={(ev) => onChange(setEdgeCondition(def, e.from, e.to, ev.currentTarget.value))}
            style={{ flex: 1 }}
          />
          <ActionIcon
            variant="subtle"
            color="red"
            aria-label={`Disconnect ${node.id} from ${e.to}`}
            onClick={() => onChange(disconnect(def, e.from, e.to))}
            mb={4}
          >
            ✕
          </ActionIcon>
        </Group>
      ))}
      <Group gap="xs" align="flex-end" wrap="nowrap">
        <Select
          label="Connect to"
          placeholder="Choose a node"
          data={candidates}
          value={target}
          onChange={setTarget}
          style={{ flex: 1 }}
        />
        <Button
          color="blue.8"
          disabled={!target}
          onClick={() => {
            if (target) onChange(connect(def, node.id, target));
            setTarget(null);
          }}
        >
          Connect
        </Button>
      </Group>
    </Stack>
  );
}
