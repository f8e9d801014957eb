export interface WfNode {
  id: string;
  type: string;
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
/** A definition as an author is typing it (parsed JSON the server has not checked): any part may be missing or null. */
export interface WfDraft {
  nodes?: Array<WfNode | null>;
  edges?: Array<WfEdge | null>;
}
export interface Placed {
  node: WfNode;
  x: number;
  y: number;
}

export const NODE_W = 150;
export const NODE_H = 54;

/** Layered layout of a DAG: a node's column is its longest distance from the start; rows fill in order. */
export function layout(def: WfDraft | null): { placed: Placed[]; width: number; height: number } {
  const depth = new Map<string, number>();
  const nodes = Array.isArray(def?.nodes) ? def.nodes.filter((n): n is WfNode => !!n && typeof n.id === 'string') : [];
  const edges = Array.isArray(def?.edges) ? def.edges.filter((e): e is WfEdge => !!e && typeof e.from === 'string') : [];
  for (const n of nodes) depth.set(n.id, 0);
  // Bellman-Ford style relaxation, bounded by the node count, so a cycle (which the server refuses) cannot hang us.
  for (const _round of nodes) {
    for (const e of edges) {
      const d = (depth.get(e.from) ?? 0) + 1;
      const current = depth.get(e.to);
      if (current !== undefined && d > current && d < nodes.length) depth.set(e.to, d);
    }
  }
  const rows = new Map<number, number>();
  const placed = nodes.map((node) => {
    const col = depth.get(node.id) ?? 0;
    const row = rows.get(col) ?? 0;
    rows.set(col, row + 1);
    return { node, x: 20 + col * (NODE_W + 60), y: 20 + row * (NODE_H + 30) };
  });
  const width = Math.max(200, ...placed.map((p) => p.x + NODE_W + 20));
  const height = Math.max(100, ...placed.map((p) => p.y + NODE_H + 20));
  return { placed, width, height };
}
