import { Button, Stack, Text, Title } from '@mantine/core';
import type { WfDefinition } from '../graph';
import { DRAG_TYPE } from './FlowCanvas';
import type { NodeType } from './model';
import { NODE_KINDS } from './node-kinds';

/**
 * The node types: drag one onto the canvas, or press its button (keyboard) to add it after the selected node, wired
 * from it.
 */
export function Palette({
  def,
  selected,
  onAdd,
}: {
  def: WfDefinition;
  selected: string | null;
  onAdd: (type: NodeType) => void;
}) {
  const hasStart = def.nodes.some((n) => n.type === 'start');
  return (
    <Stack gap="xs" component="section" aria-label="Node palette">
      <Title order={3} size="h5">
        Add node
      </Title>
      <Text size="xs" c="gray.7">
        Drag onto the canvas, or press to add {selected ? `after ${selected}` : 'one'}.
      </Text>
      {NODE_KINDS.map((k) => (
        <Button
          key={k.type}
          variant="default"
          justify="flex-start"
          draggable
          disabled={k.type === 'start' && hasStart}
          aria-label={`Add ${k.label.toLowerCase()} node`}
          title={k.hint}
          onDragStart={(e) => {
            e.dataTransfer.setData(DRAG_TYPE, k.type);
            e.dataTransfer.effectAllowed = 'move';
          }}
          onClick={() => onAdd(k.type)}
          style={{ borderLeft: `4px solid ${k.accent}` }}
        >
          {k.label}
        </Button>
      ))}
    </Stack>
  );
}
