import { layout, NODE_H, NODE_W, type WfDraft } from './graph';

const STATUS_COLORS: Record<string, string> = {
  pending: '#f1f3f5',
  running: '#d0ebff',
  waiting: '#ffe8cc',
  completed: '#d3f9d8',
  failed: '#ffe3e3',
  skipped: '#e9ecef',
};

/** The definition as a graph (nodes and edges); with a run's node states, each node is coloured and labelled by status. */
export function WorkflowGraph({ def, states }: { def: WfDraft; states?: Record<string, { status: string }> }) {
  const { placed, width, height } = layout(def);
  const at = new Map(placed.map((p) => [p.node.id, p]));
  return (
    <svg
      width="100%"
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label="Workflow graph"
      style={{ maxWidth: width, border: '1px solid #dee2e6', borderRadius: 8 }}
    >
      <defs>
        <marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse">
          <path d="M 0 0 L 10 5 L 0 10 z" fill="#868e96" />
        </marker>
      </defs>
      {(def.edges ?? []).map((e, i) => {
        if (!e) return null;
        const a = at.get(e.from);
        const b = at.get(e.to);
        if (!a || !b) return null;
        const [x1, y1, x2, y2] = [a.x + NODE_W, a.y + NODE_H / 2, b.x, b.y + NODE_H / 2];
        return (
          <g key={i}>
            <line x1={x1} y1={y1} x2={x2} y2={y2} stroke="#868e96" markerEnd="url(#arrow)" />
            {e.when && (
              <text x={(x1 + x2) / 2} y={(y1 + y2) / 2 - 4} fontSize="10" textAnchor="middle" fill="#495057">
                {e.when}
              </text>
            )}
          </g>
        );
      })}
      {placed.map(({ node, x, y }) => {
        const status = states?.[node.id]?.status;
        return (
          <g key={node.id} data-testid={`node-${node.id}`} data-status={status ?? ''}>
            <rect
              x={x}
              y={y}
              width={NODE_W}
              height={NODE_H}
              rx={8}
              fill={status ? (STATUS_COLORS[status] ?? '#fff') : '#fff'}
              stroke="#495057"
            />
            <text x={x + NODE_W / 2} y={y + 22} fontSize="13" fontWeight="600" textAnchor="middle">
              {node.id}
            </text>
            <text x={x + NODE_W / 2} y={y + 40} fontSize="11" textAnchor="middle" fill="#495057">
              {status ? `${node.type} · ${status === 'waiting' ? 'waiting for approval' : status}` : node.type}
            </text>
          </g>
        );
      })}
    </svg>
  );
}
