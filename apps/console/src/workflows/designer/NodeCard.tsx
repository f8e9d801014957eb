import { Handle, Position, type Node, type NodeProps } from '@xyflow/react';
import type { WfNode } from '../graph';
import { kindOf, statusWords } from './node-kinds';

export interface NodeCardData extends Record<string, unknown> {
  node: WfNode;
  problems: string[];
  status?: string;
}
export type CardNode = Node<NodeCardData, 'wf'>;

const STATUS_BG: Record<string, string> = {
  running: '#e7f5ff',
  waiting: '#fff4e6',
  completed: '#ebfbee',
  failed: '#fff5f5',
  skipped: '#f1f3f5',
};

/** One node on the canvas: its type, id, run state or problems; handles in (left) and out (right). */
export function NodeCard({ data, selected }: NodeProps<CardNode>) {
  const { node, problems, status } = data;
  const kind = kindOf(node.type);
  const bad = problems.length > 0;
  const words = statusWords(node.type, status);
  return (
    <div
      data-testid={`node-${node.id}`}
      data-status={status ?? ''}
      data-invalid={bad ? 'true' : 'false'}
      style={{
        width: 190,
        minHeight: 70,
        padding: '6px 10px',
        borderRadius: 8,
        background: status ? (STATUS_BG[status] ?? '#fff') : bad ? '#fff5f5' : '#fff',
        border: `2px solid ${bad || status === 'failed' ? '#c92a2a' : kind.accent}`,
        boxShadow: selected ? '0 0 0 3px #339af0' : undefined,
        color: '#212529',
        fontSize: 12,
      }}
    >
      {node.type !== 'start' && <Handle type="target" position={Position.Left} />}
      <div style={{ fontWeight: 700, color: '#212529' }}>{kind.label}</div>
      <div style={{ fontFamily: 'monospace' }}>{node.id}</div>
      {words && <div data-testid={`node-status-${node.id}`}>{words}</div>}
      {bad && (
        <div role="note" style={{ color: '#a61e1e', marginTop: 2 }}>
          {problems.join('; ')}
        </div>
      )}
      {node.type !== 'end' && <Handle type="source" position={Position.Right} />}
    </div>
  );
}
