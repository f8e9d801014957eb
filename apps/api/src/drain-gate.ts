import { ShutdownSignal } from '@nestjs/common';
import type { RequestHandler } from 'express';

/** How long a client (or the proxy in front) should wait before trying this request again — on another instance. */
const RETRY_AFTER_S = '1';

/** Set once this process was told to stop; never cleared (a stopping process does not come back). */
let draining = false;

/**
 * From a stop signal on (any that `enableShutdownHooks()` closes the app on: SIGTERM, SIGINT, SIGHUP...), this
 * instance takes no new request: each gets a 503 with `Retry-After` (the health check too, so a proxy or a readiness
 * probe takes the instance out at once), while the requests already under way, the runs' drives and the buffered
 * audit rows finish. Without it a request arriving while modules shut down could meet
 * a closed pool and answer 500. `once`: Nest's own handler re-sends the signal after closing, which must then end
 * the process.
 */
export function drainOnStopSignals(): void {
  const start = () => (draining = true);
  for (const signal of Object.values(ShutdownSignal)) process.once(signal, start);
}

export function drainGate(): RequestHandler {
  return (_req, res, next) => {
    if (!draining) {
      next();
      return;
    }
    res.setHeader('Retry-After', RETRY_AFTER_S);
    res.setHeader('Connection', 'close');
    res.status(503).json({
      statusCode: 503,
      error: 'Service Unavailable',
      message: 'This instance is shutting down; retry the request (another instance takes it)',
    });
  };
}
