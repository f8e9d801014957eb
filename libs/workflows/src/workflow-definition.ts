import { parse as parseCel } from '@marcbachmann/cel-js';
import { BadInputError, celRegexProblem, findCycle, jsonText } from '@warden/common';
import { parseApproverPolicy, parseEscalationPolicy } from '@warden/hooks';

export type WorkflowNodeType = 'start' | 'agent' | 'connector' | 'human' | 'condition' | 'end';

export interface WorkflowNode {
  id: string;
  type: WorkflowNodeType;
  /** agent: the agent to run (surface `workflow`, its own hooks). */
  agent_id?: string;
  /** agent: the task, a template over `inputs.*` and `nodes.<id>.output`. */
  prompt?: string;
  /** connector: the tool (`<connector>__<action>`) and its args (string values are templates). */
  tool?: string;
  args?: Record<string, unknown>;
  /** connector: hooks for the call, as in an agent's `model_config_json.hooks` (auto-attached hooks always apply). */
  hooks?: unknown;
  /**
   * agent / connector: the approval policy, as an agent's `model_config_json.confirmation` (approvers, tiers...); on an
   * agent node its keys override the agent's own.
   */
  confirmation?: Record<string, unknown>;
  /** human: the question (a template) and the form of the answer (JSON schema; default one line of text). */
  question?: string;
  form?: Record<string, unknown>;
  /** condition: a CEL expression over `inputs` and `nodes`; its value is the node's output. */
  expression?: string;
}

export interface WorkflowEdge {
  from: string;
  to: string;
  /** Optional CEL over `inputs` and `nodes`; the edge is followed only when it is true. */
  when?: string;
}

export interface WorkflowDefinition {
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
}

const NODE_TYPES: WorkflowNodeType[] = ['start', 'agent', 'connector', 'human', 'condition', 'end'];

function celProblem(expr: unknown, where: string): string | undefined {
  if (typeof expr !== 'string' || expr.trim() === '') return `${where}: must be a non-empty CEL expression`;
  try {
    const regex = celRegexProblem(parseCel(expr).ast);
    return regex ? `${where}: ${regex}` : undefined;
  } catch (err) {
    return `${where}: invalid CEL expression: ${(err as Error).message.split('\n')[0]}`;
  }
}

/** Evaluates a node's or edge's CEL; one calling matches() (saved before it was refused) throws instead of running. */
export function evaluateWorkflowCel(expr: string, scope: Record<string, unknown>): unknown {
  const compiled = parseCel(expr);
  const regex = celRegexProblem(compiled.ast);
  if (regex) throw new Error(regex);
  return compiled(scope);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const isList = (v: unknown): v is unknown[] => Array.isArray(v);
const isNodeType = (t: unknown): t is WorkflowNodeType => NODE_TYPES.some((type) => type === t);

/**
 * Structural checks of a workflow definition: one start, known node types and edge ends, no cycles, an end reachable
 * from the start, valid CEL. Agents and tools are checked by the caller (they need the database).
 */
export function validateWorkflowDefinition(def: unknown): string[] {
  if (!isObject(def)) return ['definition: must be an object with nodes and edges'];
  const { nodes, edges } = def;
  if (!isList(nodes) || nodes.length === 0) return ['definition.nodes: must be a non-empty list'];
  if (!isList(edges)) return ['definition.edges: must be a list'];

  const ids = new Set<string>();
  const problems = nodes.flatMap((n, i) => nodeProblems(n, `definition.nodes[${i}]`, ids));
  const starts = nodes.filter((n) => isObject(n) && n.type === 'start');
  if (starts.length !== 1) problems.push(`definition: needs exactly one start node (found ${starts.length})`);
  if (!nodes.some((n) => isObject(n) && n.type === 'end')) problems.push('definition: needs an end node');
  problems.push(...edges.flatMap((e, i) => edgeProblems(e, `definition.edges[${i}]`, ids)));
  if (problems.length) return problems;
  // Every node and edge passed the checks above.
  return graphProblems({ nodes, edges } as WorkflowDefinition);
}

/** One node's own problems; its id joins `ids` (duplicates reported). */
function nodeProblems(n: unknown, where: string, ids: Set<string>): string[] {
  if (!isObject(n) || typeof n.id !== 'string' || n.id === '') return [`${where}: needs a string id`];
  const problems: string[] = [];
  const at = `${where} (${n.id})`;
  if (!/^[A-Za-z_][\w-]*$/.test(n.id)) problems.push(`${where}: id "${n.id}" may use letters, digits, _ and - only`);
  if (ids.has(n.id)) problems.push(`${where}: duplicate node id "${n.id}"`);
  ids.add(n.id);
  if (!isNodeType(n.type)) return [...problems, `${at}: unknown type "${String(n.type)}"`];
  switch (n.type) {
    case 'agent':
      if (typeof n.agent_id !== 'string') problems.push(`${at}: agent node needs agent_id`);
      if (typeof n.prompt !== 'string' || n.prompt === '') problems.push(`${at}: agent node needs a prompt`);
      break;
    case 'connector':
      if (typeof n.tool !== 'string' || n.tool === '') problems.push(`${at}: connector node needs a tool`);
      if (n.args !== undefined && (typeof n.args !== 'object' || Array.isArray(n.args)))
        problems.push(`${at}: args must be an object`);
      break;
    case 'human':
      if (typeof n.question !== 'string' || n.question.trim() === '')
        problems.push(`${at}: human node needs a question`);
      if (n.form !== undefined && (typeof n.form !== 'object' || n.form === null || Array.isArray(n.form)))
        problems.push(`${at}: form must be a JSON schema object`);
      break;
    case 'condition': {
      const p = celProblem(n.expression, `${at}.expression`);
      if (p) problems.push(p);
      break;
    }
  }
  const gated = n.type === 'agent' || n.type === 'connector' || n.type === 'human';
  if (gated && n.confirmation !== undefined)
    problems.push(...confirmationProblems(n.confirmation, `${at}.confirmation`));
  return problems;
}

function edgeProblems(e: unknown, where: string, ids: Set<string>): string[] {
  if (!isObject(e)) return [`${where}: must be { from, to }`];
  const known = (id: unknown) => typeof id === 'string' && ids.has(id);
  const problems: string[] = [];
  if (!known(e.from)) problems.push(`${where}: unknown node "${String(e.from)}" in from`);
  if (!known(e.to)) problems.push(`${where}: unknown node "${String(e.to)}" in to`);
  if (e.when !== undefined) {
    const p = celProblem(e.when, `${where}.when`);
    if (p) problems.push(p);
  }
  return problems;
}

/** The checks of the graph as a whole, on well-formed nodes and edges with exactly one start. */
function graphProblems({ nodes, edges }: WorkflowDefinition): string[] {
  const problems: string[] = [];
  const out = new Map(nodes.map((n) => [n.id, edges.filter((e) => e.from === n.id).map((e) => e.to)]));
  const cycle = findCycle(out);
  if (cycle) problems.push(`definition: cycle ${cycle.join(' -> ')}`);
  const [start] = nodes.filter((n) => n.type === 'start');
  const reachable = reachableFrom(start.id, out);
  if (!nodes.some((n) => n.type === 'end' && reachable.has(n.id)))
    problems.push('definition: no end node is reachable from the start');
  for (const n of nodes)
    if (!reachable.has(n.id)) problems.push(`definition: node "${n.id}" is not reachable from the start`);
  if (edges.some((e) => e.to === start.id)) problems.push('definition: the start node cannot have incoming edges');
  return problems;
}

function reachableFrom(start: string, out: ReadonlyMap<string, string[]>): Set<string> {
  const reached = new Set<string>([start]);
  const queue = [start];
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    for (const next of out.get(id) ?? []) {
      if (reached.has(next)) continue;
      reached.add(next);
      queue.push(next);
    }
  }
  return reached;
}

/**
 * A text field the node's type requires (checked when the definition was saved): a stored definition without it fails
 * here, rather than running the node with nothing.
 */
export function nodeField(node: WorkflowNode, key: 'agent_id' | 'prompt' | 'tool' | 'question' | 'expression'): string {
  const value = node[key];
  if (value === undefined) throw new BadInputError(`invalid workflow: ${node.type} node ${node.id} has no ${key}`);
  return value;
}

/** Replaces `{{ inputs.x }}` / `{{ nodes.id.output }}` with values from the scope (objects as JSON). */
export function renderTemplate(template: string, scope: Record<string, unknown>): string {
  return template.replace(/\{\{\s*([\w.-]+)\s*\}\}/g, (_, path: string) => {
    let value: unknown = scope;
    for (const key of path.split('.'))
      value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
    if (value === undefined || value === null) return '';
    return jsonText(value);
  });
}

/** Renders templates inside the string values of connector-node args (a whole-value template keeps its type). */
export function renderArgs(args: Record<string, unknown>, scope: Record<string, unknown>): Record<string, unknown> {
  const render = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const whole = /^\{\{\s*([\w.-]+)\s*\}\}$/.exec(v);
      if (whole) {
        let value: unknown = scope;
        for (const key of whole[1].split('.'))
          value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
        return value;
      }
      return renderTemplate(v, scope);
    }
    if (Array.isArray(v)) return v.map(render);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, render(x)]));
    return v;
  };
  return render(args) as Record<string, unknown>;
}

const SCOPES = ['initiator', 'agent_owner', 'org_members', 'org_admins'];

/** A node's `confirmation`, checked with the same rules as an agent's (nobody-could-approve policies refused). */
function confirmationProblems(c: unknown, at: string): string[] {
  if (!c || typeof c !== 'object' || Array.isArray(c)) return [`${at} must be an object`];
  const conf = c as Record<string, unknown>;
  const problems: string[] = [];
  if (conf.approver_scope !== undefined && !SCOPES.includes(conf.approver_scope as string))
    problems.push(`${at}.approver_scope must be one of ${SCOPES.join(', ')}`);
  if (conf.forbid_self_approval !== undefined && typeof conf.forbid_self_approval !== 'boolean')
    problems.push(`${at}.forbid_self_approval must be true or false`);
  if (conf.timeout_s !== undefined && (typeof conf.timeout_s !== 'number' || conf.timeout_s <= 0))
    problems.push(`${at}.timeout_s must be a positive number`);
  if (conf.channel_id !== undefined && typeof conf.channel_id !== 'string')
    problems.push(`${at}.channel_id must be a string`);
  const forbidSelf = conf.forbid_self_approval === true;
  const scope = typeof conf.approver_scope === 'string' ? conf.approver_scope : 'initiator';
  if (forbidSelf && conf.approvers === undefined && scope === 'initiator')
    problems.push(`${at}: forbid_self_approval with approver_scope "initiator": nobody could approve`);
  problems.push(...parseApproverPolicy(conf, { at, legacyScope: scope, forbidSelfApproval: forbidSelf }).problems);
  problems.push(...parseEscalationPolicy(conf, at).problems);
  return problems;
}
