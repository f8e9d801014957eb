import type { WfDefinition } from '../graph';
import type { NodeType } from './model';

export interface NodeKind {
  type: NodeType;
  label: string;
  hint: string;
  /** The node's accent (a border, with dark text on white: contrast holds whatever the colour). */
  accent: string;
}

/** The engine's node types (libs/workflows workflow-definition.ts), as the palette offers them. */
export const NODE_KINDS: NodeKind[] = [
  { type: 'start', label: 'Start', hint: 'Where a run begins; names the run inputs', accent: '#2b8a3e' },
  {
    type: 'agent',
    label: 'Agent',
    hint: 'An agent works on a prompt (its hooks and approvals apply)',
    accent: '#1864ab',
  },
  { type: 'connector', label: 'Connector', hint: 'One connector action with its arguments', accent: '#5f3dc4' },
  { type: 'human', label: 'Human', hint: 'A person answers a question in a form', accent: '#c92a2a' },
  { type: 'condition', label: 'Condition', hint: 'A CEL expression; its value is the output', accent: '#e67700' },
  { type: 'end', label: 'End', hint: 'The run is done when it gets here', accent: '#495057' },
];

export const kindOf = (type: string): NodeKind =>
  NODE_KINDS.find((k) => k.type === type) ?? { type: 'end', label: type, hint: '', accent: '#495057' };

/**
 * The server's validation messages, attached to the node they are about (`definition.nodes[2] (ask): …`,
 * `node pay: …`, `node "x" is not reachable…`); the rest concern the whole workflow.
 */
export function problemsByNode(
  problems: string[],
  def: WfDefinition,
): { byNode: Map<string, string[]>; general: string[] } {
  const byNode = new Map<string, string[]>();
  const general: string[] = [];
  for (const p of problems) {
    const index = /^definition\.nodes\[(\d+)\](?: \([^)]*\))?:?\s*(.*)$/.exec(p);
    const named = /^node ([\w-]+): (.*)$/.exec(p) ?? /node "([\w-]+)" (.*)$/.exec(p);
    const id = index ? def.nodes[Number(index[1])]?.id : named?.[1];
    const text = index ? index[2] : named ? named[2] : p;
    if (id && def.nodes.some((n) => n.id === id)) byNode.set(id, [...(byNode.get(id) ?? []), text.replace(/^\.?/, '')]);
    else general.push(p);
  }
  return { byNode, general };
}

/** A node state as a person reads it on the run canvas. */
export function statusWords(type: string, status: string | undefined): string {
  if (!status) return '';
  if (status === 'waiting') return type === 'human' ? 'waiting for a human' : 'waiting for approval';
  if (status === 'completed') return 'done';
  return status;
}
