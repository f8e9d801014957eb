import { Injectable } from '@nestjs/common';
import { HookPoint, type BaseHook, type HookConfigSchema, type HookErrorPolicy } from './hook.types.js';

/** A discovered hook class: its declaration plus the provider instance that runs it. */
export interface CatalogEntry {
  name: string;
  point: HookPoint;
  priority: number;
  description: string;
  configSchema?: HookConfigSchema;
  timeoutMs: number;
  onError: HookErrorPolicy;
  autoAttach: boolean;
  runsLast?: boolean;
  keepWhenBypassed?: boolean;
  instance: BaseHook<unknown>;
  /** The class name, for error messages. */
  className: string;
}

/** Every @Hook provider of the application, filled once by HookExplorer at bootstrap and read-only afterwards. */
@Injectable()
export class HookCatalog {
  private readonly byName = new Map<string, CatalogEntry>();

  /** Called by HookExplorer only. Duplicate names are a boot failure, never a silent override. */
  register(entry: CatalogEntry): void {
    const existing = this.byName.get(entry.name);
    if (existing) {
      throw new Error(
        `Duplicate hook name "${entry.name}": declared by both ${existing.className} and ${entry.className}`,
      );
    }
    this.byName.set(entry.name, entry);
  }

  get(name: string): CatalogEntry | undefined {
    return this.byName.get(name);
  }

  /** By priority, then by name (a registry additionally runs `runsLast` hooks after the others of their point). */
  list(): CatalogEntry[] {
    return [...this.byName.values()].sort(
      (a, b) => a.priority - b.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
  }

  autoAttached(): CatalogEntry[] {
    return this.list().filter((e) => e.autoAttach);
  }
}

interface Ordered {
  priority: number;
  name: string;
  point?: HookPoint;
  runsLast?: boolean;
  origin?: 'auto' | 'org' | 'agent';
  checksArgs?: 'before-org' | 'before-gate';
}

/**
 * The band a hook runs in. PreToolUse has three: the agent's and the auto-attached hooks (the transforms: each sees
 * what the one before it rewrote), then the org's hooks (its policies decide on the args every agent transform has
 * left), then the `runsLast` hooks (the confirmation gate, on the args that will be sent); the args are checked
 * against the action's schema before the org's hooks and again before the gate (an org hook may rewrite them too).
 * Other points: `runsLast` hooks after the others.
 */
function band(h: Ordered): number {
  if (h.runsLast) return 4;
  if (h.point !== HookPoint.PreToolUse) return 0;
  if (h.checksArgs) return h.checksArgs === 'before-org' ? 1 : 3;
  return h.origin === 'org' ? 2 : 0;
}

/** The order hooks of one point run in: by band (see `band`), then ascending priority, ties by name. */
export function byRunOrder(a: Ordered, b: Ordered): number {
  return band(a) - band(b) || a.priority - b.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}
