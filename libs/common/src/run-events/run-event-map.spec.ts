import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { RUN_EVENT_TYPES } from './run-event-map.js';
import { WORKFLOW_RUN_EVENT_TYPES } from './workflow-run-event-map.js';

const LIBS = path.resolve(import.meta.dirname, '../../..');
const WORKFLOWS = `workflows${path.sep}`;

/** Every library source file (specs aside), with its path relative to libs/. */
const sources = (readdirSync(LIBS, { recursive: true }) as string[])
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts') && !f.includes('node_modules'))
  .map((f) => ({ file: f, text: readFileSync(path.join(LIBS, f), 'utf8') }));

/** The string literals in the event-type position of the emitting calls of `text`. */
function emittedTypes(file: string, text: string, workflow: boolean): string[] {
  const found: string[] = [];
  const collect = (re: RegExp) => {
    for (const m of text.matchAll(re)) found.push(m[1]);
  };
  if (workflow) {
    collect(/\b(?:event|append|appendIf)\(\s*[\w.]+,\s*'(\w+)'/g);
    // setNode(run, id, { ...state }, 'node_x') — the types follow the state object (a ternary may name two); Prettier
    // may spread the call over several lines.
    for (const call of setNodeCalls(text)) {
      for (const m of call.slice(call.lastIndexOf('}') + 1).matchAll(/'(\w+)'/g)) found.push(m[1]);
    }
  } else {
    collect(/\b(?:emit|append)\(\s*'(\w+)'/g);
    collect(/\bappend(?:Event|ToStreams|Own|If)\(\s*[\w.]+,\s*'(\w+)'/g);
    // The engine's events written with a statement of their run (RunStore.writeRun, run-insert.ts): `{ type: 'x', data: ... }`.
    if (file.startsWith(`agents${path.sep}`)) collect(/\{\s*type: '(\w+)',\s*data:/g);
  }
  return found;
}

/** The argument text of each `setNode(...)` call of `text`, up to its closing parenthesis. */
function setNodeCalls(text: string): string[] {
  const calls: string[] = [];
  for (const m of text.matchAll(/\bsetNode\(/g)) {
    const start = m.index + m[0].length;
    let depth = 1;
    let end = start;
    while (end < text.length && depth > 0) {
      if (text[end] === '(') depth++;
      else if (text[end] === ')') depth--;
      end++;
    }
    calls.push(text.slice(start, end - 1));
  }
  return calls;
}

function emittedBy(workflow: boolean): Map<string, string[]> {
  const where = new Map<string, string[]>();
  for (const { file, text } of sources.filter((s) => s.file.startsWith(WORKFLOWS) === workflow)) {
    for (const type of emittedTypes(file, text, workflow)) where.set(type, [...(where.get(type) ?? []), file]);
  }
  return where;
}

/**
 * No orphan events: the compiler checks each emitter's type and payload against the maps; this checks the other
 * direction from the sources, so a map entry nobody emits (or an emit bypassing the map) cannot go unnoticed.
 */
describe('run event maps', () => {
  it.each([
    ['agent run', false, RUN_EVENT_TYPES],
    ['workflow run', true, WORKFLOW_RUN_EVENT_TYPES],
  ] as const)(
    '%s events: every emitted type is in the map and every type of the map is emitted',
    (_name, workflow, mapped) => {
      const emitted = emittedBy(workflow);
      const unmapped = [...emitted]
        .filter(([type]) => !(mapped as readonly string[]).includes(type))
        .map(([type, files]) => `${type} (${files.join(', ')})`);
      const neverEmitted = mapped.filter((type) => !emitted.has(type));
      expect({ unmapped, neverEmitted }).toEqual({ unmapped: [], neverEmitted: [] });
    },
  );
});
