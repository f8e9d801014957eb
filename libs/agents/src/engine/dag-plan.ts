import { findCycle } from '@warden/common';
import type { PlanStep } from '../runs/run.entity.js';

export const PLANNING_PROMPT = [
  'Plan the work before doing it. Reply with JSON only, no prose, in exactly this shape:',
  '{"steps": [{"id": "s1", "task": "what to do", "depends_on": []}]}',
  'Each step is done by an assistant with the same tools; "depends_on" lists the ids of steps whose results it needs.',
  'Steps without dependencies between them run in parallel. Use as few steps as the task needs.',
].join('\n');

/** Parses and validates the model's plan: JSON shape, unique ids, known dependencies, no cycles. */
export function parsePlan(content: string): { steps?: PlanStep[]; problems: string[] } {
  const text = content
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { problems: [`the plan is not valid JSON (${(err as Error).message})`] };
  }
  const raw = (json as { steps?: unknown } | null)?.steps;
  if (!Array.isArray(raw) || raw.length === 0) return { problems: ['the plan needs a non-empty "steps" list'] };
  const problems: string[] = [];
  const steps: PlanStep[] = [];
  raw.forEach((s, i) => {
    const step = s as { id?: unknown; task?: unknown; depends_on?: unknown } | null;
    if (!step || typeof step.id !== 'string' || step.id === '') {
      problems.push(`step ${i + 1} has no string "id"`);
      return;
    }
    if (typeof step.task !== 'string' || step.task.trim() === '') problems.push(`step "${step.id}" has no "task"`);
    const deps = step.depends_on ?? [];
    if (!Array.isArray(deps) || deps.some((d) => typeof d !== 'string'))
      problems.push(`step "${step.id}": "depends_on" must be a list of step ids`);
    if (steps.some((x) => x.id === step.id)) problems.push(`step id "${step.id}" is used twice`);
    // A task that is not a string is reported above; its text here only names the step in further problems.
    // eslint-disable-next-line @typescript-eslint/no-base-to-string
    steps.push({ id: step.id, task: String(step.task ?? ''), depends_on: Array.isArray(deps) ? deps.map(String) : [] });
  });
  const ids = new Set(steps.map((s) => s.id));
  for (const s of steps)
    for (const d of s.depends_on) if (!ids.has(d)) problems.push(`step "${s.id}" depends on unknown step "${d}"`);
  if (problems.length === 0) {
    const cycle = findCycle(new Map(steps.map((s) => [s.id, s.depends_on])));
    if (cycle) problems.push(`the steps form a cycle: ${cycle.join(' -> ')}`);
  }
  return problems.length ? { problems } : { steps, problems };
}
