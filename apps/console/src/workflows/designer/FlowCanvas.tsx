import '@xyflow/react/dist/style.css';
import {
  Background,
  Controls,
  MarkerType,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  type Connection,
  type Edge,
  type EdgeChange,
  type NodeChange,
} from '@xyflow/react';
import { useState, type DragEvent } from 'react';
import { layeredPositions, type WfDefinition } from '../graph';
import { connect, disconnect, removeNode, updateNode, type NodeType } from './model';
import { NodeCard, type CardNode } from './NodeCard';

export const DRAG_TYPE = 'application/x-warden-node';
const NODE_TYPES = { wf: NodeCard };

interface Props {
  def: WfDefinition;
  selected: string | null;
  onSelect: (id: string | null) => void;
  /** Absent: read-only (a run's canvas). */
  onChange?: (def: WfDefinition) => void;
  onDrop?: (type: NodeType, position: { x: number; y: number }) => void;
  problems?: Map<string, string[]>;
  states?: Record<string, { status: string }>;
  label: string;
}

/** The workflow as a React Flow canvas: nodes dragged, connected by their handles, deleted (Delete key). */
export function FlowCanvas(props: Props) {
  return (
    <ReactFlowProvider>
      <Canvas {...props} />
    </ReactFlowProvider>
  );
}

function Canvas({ def, selected, onSelect, onChange, onDrop, problems, states, label }: Props) {
  const flow = useReactFlow();
  const [measured, setMeasured] = useState<Record<string, { width: number; height: number }>>({});
  // A node without a position (an imported definition) stands where the layered layout puts it, until moved.
  const fallback = def.nodes.every((n) => n.position) ? null : layeredPositions(def);
  const nodes: CardNode[] = def.nodes.map((n) => ({
    id: n.id,
    type: 'wf',
    position: n.position ?? fallback?.get(n.id) ?? { x: 0, y: 0 },
    data: { node: n, problems: problems?.get(n.id) ?? [], status: states?.[n.id]?.status },
    selected: n.id === selected,
    measured: measured[n.id],
    ariaLabel: `${n.type} node ${n.id}`,
  }));
  const edges: Edge[] = def.edges.map((e) => ({
    id: `${e.from}->${e.to}`,
    source: e.from,
    target: e.to,
    label: e.when,
    markerEnd: { type: MarkerType.ArrowClosed },
    ariaLabel: `${e.from} leads to ${e.to}`,
  }));

  const onNodesChange = (changes: Array<NodeChange<CardNode>>) => {
    let next = def;
    // One batch may unselect the old node and select the new one, in either order: the selection wins.
    let choice: string | null | undefined;
    for (const c of changes) {
      if (c.type === 'dimensions') {
        const { id, dimensions } = c;
        if (dimensions) setMeasured((m) => ({ ...m, [id]: dimensions }));
      } else if (c.type === 'select' && c.selected) choice = c.id;
      else if (c.type === 'select' && c.id === selected && choice === undefined) choice = null;
      else if (c.type === 'position' && c.position && onChange) next = updateNode(next, c.id, { position: c.position });
      else if (c.type === 'remove' && onChange) next = removeNode(next, c.id);
    }
    if (choice !== undefined) onSelect(choice);
    if (next !== def) onChange?.(next);
  };
  const onEdgesChange = (changes: EdgeChange[]) => {
    let next = def;
    for (const c of changes) {
      if (c.type !== 'remove' || !onChange) continue;
      const [from, to] = c.id.split('->');
      next = disconnect(next, from, to);
    }
    if (next !== def) onChange?.(next);
  };
  const onConnect = (c: Connection) => onChange?.(connect(def, c.source, c.target));
  const drop = (e: DragEvent) => {
    const type = e.dataTransfer.getData(DRAG_TYPE);
    if (type === '' || !onDrop) return;
    e.preventDefault();
    onDrop(type as NodeType, flow.screenToFlowPosition({ x: e.clientX, y: e.clientY }));
  };
  return (
    <div style={{ height: 520, border: '1px solid #ced4da', borderRadius: 8 }} aria-label={label} role="region">
      <ReactFlow<CardNode>
        nodes={nodes}
        edges={edges}
        nodeTypes={NODE_TYPES}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        onConnect={onConnect}
        onDrop={drop}
        onDragOver={(e) => {
          if (onDrop) e.preventDefault();
        }}
        onPaneClick={() => onSelect(null)}
        nodesDraggable={!!onChange}
        nodesConnectable={!!onChange}
        edgesFocusable={!!onChange}
        deleteKeyCode={onChange ? ['Delete', 'Backspace'] : null}
        fitView
        fitViewOptions={{ maxZoom: 1 }}
        minZoom={0.3}
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
