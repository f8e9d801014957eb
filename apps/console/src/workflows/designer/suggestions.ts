import type { WfDefinition } from '../graph';
import { fieldsOf } from './form-schema';

/** What a template in a node may read: the run inputs and the outputs of the nodes before it (form fields too). */
export function templateSuggestions(def: WfDefinition, upstream: Set<string>): string[] {
  const start = def.nodes.find((n) => n.type === 'start');
  const inputs = Array.isArray(start?.inputs) ? (start.inputs as string[]).map((name) => `inputs.${name}`) : [];
  const outputs = def.nodes
    .filter((n) => upstream.has(n.id) && n.type !== 'start' && n.type !== 'end')
    .flatMap((n) => [
      `nodes.${n.id}.output`,
      ...(n.type === 'human' ? fieldsOf(n.form).map((f) => `nodes.${n.id}.output.${f.name}`) : []),
    ]);
  return [...inputs, ...outputs];
}
