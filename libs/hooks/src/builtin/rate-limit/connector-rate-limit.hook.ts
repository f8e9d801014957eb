import { RateLimiterRes } from 'rate-limiter-flexible';
import { Hook } from '../../hook.decorator.js';
import { PreToolUseHook, type HookContext, type HookResult } from '../../hook.types.js';
import { ConnectorRateLimiters } from './connector-rate-limiters.js';

interface Limit {
  points: number;
  duration_s: number;
}

export interface ConnectorRateLimitConfig extends Partial<Limit> {
  /** Per-action overrides, keyed by the connector's action name (e.g. `purchase_pay`). */
  actions?: Record<string, unknown>;
}

export const CONNECTOR_RATE_LIMIT_HOOK = 'connector_rate_limit';

const isPositiveInt = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 1;

/**
 * Limits connector calls per connector per user (`points` calls per `duration_s`), with optional per-action
 * overrides that count separately. Counts live in a shared store (see ConnectorRateLimiters), so every server
 * instance sees the same numbers. Runs before the confirmation gate (10): a rate-limited call never posts a card.
 * A store failure throws, and the registry blocks the call (fail closed).
 */
@Hook({
  name: CONNECTOR_RATE_LIMIT_HOOK,
  priority: 8,
  description:
    'Limits connector calls per connector per user (points per duration_s; optional per-action overrides); ' +
    'the block says when to retry.',
  configSchema: {
    type: 'object',
    properties: {
      points: { type: 'integer', minimum: 1, description: 'Calls allowed per window, per connector per user' },
      duration_s: { type: 'integer', minimum: 1, description: 'Window length in seconds' },
      actions: {
        type: 'object',
        description: 'Per-action overrides: { "<action>": { "points": n, "duration_s": s } }',
      },
    },
    required: ['points', 'duration_s'],
    additionalProperties: false,
  },
})
export class ConnectorRateLimitHook extends PreToolUseHook<ConnectorRateLimitConfig> {
  constructor(private readonly limiters: ConnectorRateLimiters) {
    super();
  }

  override shouldTrigger(ctx: HookContext): boolean {
    // A call decided again on resume (its chain changed while it waited) was counted when it was first decided.
    return ctx.metadata.connector !== undefined && !ctx.metadata.decidingAgain;
  }

  async execute(ctx: HookContext, config: ConnectorRateLimitConfig): Promise<HookResult> {
    const connector = ctx.metadata.connector;
    // shouldTrigger admits only connector calls; nothing else can be counted against a connector's limit.
    if (!connector) throw new Error(`${CONNECTOR_RATE_LIMIT_HOOK} has no connector for tool ${ctx.toolName}`);
    const limits = checkedLimits(config);
    const override = limits.actions.get(connector.action);
    const limit = override ?? limits.connector;
    // An action with its own limit has its own count; the others share the connector's.
    const scope = override === undefined ? connector.name : `${connector.name}.${connector.action}`;
    const actionSuffix = override === undefined ? '' : `.${connector.action}`;
    const key = `${ctx.orgId}:${connector.id || connector.name}${actionSuffix}:${ctx.userId}`;
    const limiter = this.limiters.limiter(limit.points, limit.duration_s);
    const window = `${limit.points} per ${limit.duration_s} s`;

    if (ctx.metadata.dryRun) {
      // `get` reads the count without consuming a point.
      const current = await limiter.get(key);
      if (current && current.consumedPoints >= limit.points) return blocked(window, scope, current);
      return { sideEffects: [`would use 1 of ${window} for ${scope} (${current?.consumedPoints ?? 0} used)`] };
    }
    try {
      const res = await limiter.consume(key, 1);
      return { sideEffects: [`${scope}: ${res.consumedPoints} of ${window} used`] };
    } catch (err) {
      if (err instanceof RateLimiterRes) return blocked(window, scope, err);
      throw err;
    }
  }
}

function blocked(window: string, scope: string, res: RateLimiterRes): HookResult {
  const retryS = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  return {
    allow: false,
    error: `rate limit ${window} for ${scope} reached; retry in ${retryS} s`,
    sideEffects: [`rate limited (${scope}, ${window})`],
  };
}

/**
 * The schema language has no nested objects, so the overrides are checked here, all of them on every call: a bad
 * config blocks every call (fail closed) with a message naming the setting, rather than only the odd action's.
 */
function checkedLimits(config: ConnectorRateLimitConfig): { connector: Limit; actions: Map<string, Limit> } {
  if (!isPositiveInt(config.points) || !isPositiveInt(config.duration_s)) {
    throw new Error('connector_rate_limit config needs integer points >= 1 and duration_s >= 1');
  }
  const actions = new Map<string, Limit>();
  for (const [action, value] of Object.entries(config.actions ?? {})) {
    const o = value as Partial<Limit> | null;
    if (
      typeof o !== 'object' ||
      o === null ||
      !isPositiveInt(o.points) ||
      !isPositiveInt(o.duration_s) ||
      Object.keys(o).some((k) => k !== 'points' && k !== 'duration_s')
    ) {
      throw new Error(
        `connector_rate_limit config actions.${action} must be { "points": integer >= 1, "duration_s": integer >= 1 }`,
      );
    }
    actions.set(action, { points: o.points, duration_s: o.duration_s });
  }
  return { connector: { points: config.points, duration_s: config.duration_s }, actions };
}
