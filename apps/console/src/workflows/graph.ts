export interface WfNode {
  id: string;
  type: string;
  /** Where the designer drew it (the engine ignores it). */
  position?: { x: number; y: number };
  [k: string]: unknown;
}
export interface WfEdge {
  from: string;
  to: string;
  when?: string;
}
export interface WfDefinition {
  nodes: WfNode[];
  edges: WfEdge[];
}

export const NODE_W = 190;
export const NODE_H = 70;
const GAP_X = 70;
const GAP_Y = 40;

/** Layered layout of a DAG: a node's column is its longest distance from a root; rows fill in order. */
export function layeredPositions(def: WfDefinition): Map<string, { x: number; y: number }> {
  const depth = new Map<string, number>(def.nodes.map((n) => [n.id, 0]));
  // Relaxation bounded by the node count, so a cycle (which the server refuses) cannot hang the layout.
  for (const _round of def.nodes) {
    for (const e of def.edges) {
      const d = (depth.get(e.from) ?? 0) + 1;
      const current = depth.get(e.to);
      if (current !== undefined && d > current && d < def.nodes.length) depth.set(e.to, d);
    }
  }
  const rows = new Map<number, number>();
  const at = new Map<string, { x: number; y: number }>();
  for (const node of def.nodes) {
    const col = depth.get(node.id) ?? 0;
    const row = rows.get(col) ?? 0;
    rows.set(col, row + 1);
    at.set(node.id, { x: 20 + col * (NODE_W + GAP_X), y: 20 + row * (NODE_H + GAP_Y) });
  }
  return at;
}

/** A definition typed or imported by a person: the shape the designer edits, or null when it is not one. */
export function asDefinition(value: unknown): WfDefinition | null {
  if (!value || typeof value !== 'object') return null;
  const { nodes, edges } = value as { nodes?: unknown; edges?: unknown };
  if (!Array.isArray(nodes) || !Array.isArray(edges)) return null;
  const okNode = (n: unknown) =>
    !!n && typeof n === 'object' && typeof (n as WfNode).id === 'string' && typeof (n as WfNode).type === 'string';
  const okEdge = (e: unknown) =>
    !!e && typeof e === 'object' && typeof (e as WfEdge).from === 'string' && typeof (e as WfEdge).to === 'string';
  if (!nodes.every(okNode) || !edges.every(okEdge)) return null;
  return value as WfDefinition;
}
