import { layeredPositions, NODE_W, type WfDefinition, type WfNode } from '../graph';

export type NodeType = 'start' | 'agent' | 'connector' | 'human' | 'condition' | 'end';

/** The fields a new node of each type starts with (the side panel fills the rest). */
const DEFAULTS: Record<NodeType, Partial<WfNode>> = {
  start: { inputs: [] },
  agent: { prompt: '' },
  connector: { args: {} },
  human: { question: '' },
  condition: { expression: '' },
  end: {},
};

/** A fresh id for a node of this type: `start`/`end` first, then `agent_1`, `agent_2`... */
export function freshId(def: WfDefinition, type: NodeType): string {
  const taken = new Set(def.nodes.map((n) => n.id));
  if ((type === 'start' || type === 'end') && !taken.has(type)) return type;
  for (let i = 1; ; i++) if (!taken.has(`${type}_${i}`)) return `${type}_${i}`;
}

/**
 * Adds a node of `type`: where it was dropped, or to the right of `after` and wired from it (unless `after` is an end
 * node or the new node a start). Returns the new definition and the node's id.
 */
export function addNode(
  def: WfDefinition,
  type: NodeType,
  opts: { after?: string | null; position?: { x: number; y: number } } = {},
): { def: WfDefinition; id: string } {
  const id = freshId(def, type);
  const from = opts.after ? def.nodes.find((n) => n.id === opts.after) : undefined;
  const below = Math.max(20, ...def.nodes.map((n) => (n.position?.y ?? 0) + 110));
  const position =
    opts.position ?? (from?.position ? { x: from.position.x + NODE_W + 70, y: from.position.y } : { x: 20, y: below });
  const node: WfNode = { id, type, ...structuredClone(DEFAULTS[type]), position };
  const wire = from && from.type !== 'end' && type !== 'start';
  return {
    id,
    def: { nodes: [...def.nodes, node], edges: wire ? [...def.edges, { from: from.id, to: id }] : def.edges },
  };
}

export function removeNode(def: WfDefinition, id: string): WfDefinition {
  return { nodes: def.nodes.filter((n) => n.id !== id), edges: def.edges.filter((e) => e.from !== id && e.to !== id) };
}

/** Why `from → to` cannot be drawn, or null when it can. */
export function connectProblem(def: WfDefinition, from: string, to: string): string | null {
  const a = def.nodes.find((n) => n.id === from);
  const b = def.nodes.find((n) => n.id === to);
  if (!a || !b) return 'both ends must be nodes';
  if (from === to) return 'a node cannot lead to itself';
  if (a.type === 'end') return 'an end node has no next node';
  if (b.type === 'start') return 'nothing leads into the start node';
  if (def.edges.some((e) => e.from === from && e.to === to)) return `${from} already leads to ${to}`;
  if (upstreamOf(def, from).has(to)) return `${to} comes before ${from}: that would make a loop`;
  return null;
}

export function connect(def: WfDefinition, from: string, to: string): WfDefinition {
  return connectProblem(def, from, to) ? def : { ...def, edges: [...def.edges, { from, to }] };
}

export function disconnect(def: WfDefinition, from: string, to: string): WfDefinition {
  return { ...def, edges: def.edges.filter((e) => !(e.from === from && e.to === to)) };
}

/** Sets (or, with undefined, removes) fields of one node. */
export function updateNode(def: WfDefinition, id: string, patch: Record<string, unknown>): WfDefinition {
  const nodes = def.nodes.map((n) => {
    if (n.id !== id) return n;
    const merged = Object.entries({ ...n, ...patch }).filter(([, v]) => v !== undefined);
    return Object.fromEntries(merged) as WfNode;
  });
  return { ...def, nodes };
}

export function setEdgeCondition(def: WfDefinition, from: string, to: string, when: string): WfDefinition {
  const edges = def.edges.map((e) => (e.from === from && e.to === to ? (when ? { from, to, when } : { from, to }) : e));
  return { ...def, edges };
}

/** Why a node cannot take this id, or null (the server's rule: letters, digits, _ and -, not starting with a digit). */
export function idProblem(def: WfDefinition, id: string, newId: string): string | null {
  if (!/^[A-Za-z_][\w-]*$/.test(newId)) return 'letters, digits, _ and - only, not starting with a digit or -';
  if (newId !== id && def.nodes.some((n) => n.id === newId)) return `another node is called ${newId}`;
  return null;
}

/** Renames a node, its edges and the templates that read its output. */
export function renameNode(def: WfDefinition, id: string, newId: string): WfDefinition {
  const text = JSON.stringify(def.nodes).replaceAll(`nodes.${id}.`, `nodes.${newId}.`);
  const nodes = (JSON.parse(text) as WfNode[]).map((n) => (n.id === id ? { ...n, id: newId } : n));
  const rename = (x: string) => (x === id ? newId : x);
  return { nodes, edges: def.edges.map((e) => ({ ...e, from: rename(e.from), to: rename(e.to) })) };
}

/** Every node placed by the layered layout. */
export function autoLayout(def: WfDefinition): WfDefinition {
  const at = layeredPositions(def);
  return { ...def, nodes: def.nodes.map((n) => ({ ...n, position: at.get(n.id) })) };
}

/** Nodes without a position (an imported definition) get one from the layout; the rest keep theirs. */
export function withPositions(def: WfDefinition): WfDefinition {
  if (def.nodes.every((n) => n.position)) return def;
  const at = layeredPositions(def);
  return { ...def, nodes: def.nodes.map((n) => (n.position ? n : { ...n, position: at.get(n.id) })) };
}

/** The nodes that run before `id` (its ancestors). */
export function upstreamOf(def: WfDefinition, id: string): Set<string> {
  const seen = new Set<string>();
  const queue = [id];
  for (let at = queue.shift(); at !== undefined; at = queue.shift()) {
    for (const e of def.edges) {
      if (e.to === at && !seen.has(e.from)) {
        seen.add(e.from);
        queue.push(e.from);
      }
    }
  }
  return seen;
}
