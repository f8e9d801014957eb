import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** axe-core's browser bundle, evaluated in the page through the DevTools protocol (so the console's CSP allows it). */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeFinding {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/**
 * Runs axe-core (WCAG 2.x A/AA rules) on the page as it is now — or only on the elements `within` selects — and
 * returns its serious and critical violations.
 */
export async function seriousA11yViolations(page: Page, within?: string): Promise<AxeFinding[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async (selector) => {
    const axe = (globalThis as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<AxeResults> } }).axe;
    const context = selector ? { include: [[selector]] } : (globalThis as unknown as { document: unknown }).document;
    const results = await axe.run(context, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa'] },
    });
    return results.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? 'unknown',
      help: v.help,
      targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
    }));
    interface AxeResults {
      violations: Array<{ id: string; impact?: string; help: string; nodes: Array<{ target: string[] }> }>;
    }
  }, within);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** The page's serious and critical violations as readable lines (state, rule, help, first elements). */
export async function a11yReport(page: Page, state: string, within?: string): Promise<string[]> {
  const found = await seriousA11yViolations(page, within);
  return found.map((v) => `${state}: ${v.impact} ${v.id} (${v.help}) at ${v.targets.join(' | ')}`);
}

/** Fails with a readable list (rule, help, first elements) when the page has serious or critical violations. */
export async function expectAccessible(page: Page, state: string, within?: string): Promise<void> {
  expect(await a11yReport(page, state, within)).toEqual([]);
}
