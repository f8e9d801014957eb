/** A pino record as written by nestjs-pino / pino-http (only the fields the compact line reads). */
export interface LogRecord {
  level?: number;
  time?: number;
  context?: string;
  msg?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  err?: { message?: string; stack?: string };
  [field: string]: unknown;
}

const LEVELS: Record<number, { label: string; color: number }> = {
  10: { label: 'TRACE', color: 90 },
  20: { label: 'DEBUG', color: 36 },
  30: { label: 'INFO', color: 32 },
  40: { label: 'WARN', color: 33 },
  50: { label: 'ERROR', color: 31 },
  60: { label: 'FATAL', color: 35 },
};

/** Fields the line shows in its own way, or that say nothing to a person at a terminal. */
const SHOWN_OR_NOISE = new Set([
  'level',
  'time',
  'pid',
  'hostname',
  'context',
  'msg',
  'req',
  'res',
  'responseTime',
  'reqId',
  'err',
]);

const pad2 = (n: number) => String(n).padStart(2, '0');

function clock(time: number | undefined): string {
  const at = new Date(time ?? Date.now());
  return `${pad2(at.getHours())}:${pad2(at.getMinutes())}:${pad2(at.getSeconds())}`;
}

/** A finished request (pino-http adds `res` only to its one line per response): `GET /api/me 401 3ms`. */
function requestSummary(record: LogRecord): string | undefined {
  if (!record.req || !record.res) return undefined;
  const ms = typeof record.responseTime === 'number' ? ` ${Math.round(record.responseTime)}ms` : '';
  return `${record.req.method ?? '?'} ${record.req.url ?? '?'} ${record.res.statusCode ?? '?'}${ms}`;
}

/**
 * One log record as one short line for a person at a terminal: `HH:MM:SS LEVEL context message`, and for a request
 * `HH:MM:SS LEVEL METHOD /path status ms`. Other fields follow as compact JSON on the same line; an error's stack
 * follows on indented lines (the only case of more than one line). Machines get the JSON records themselves.
 */
export function compactLogLine(record: LogRecord, opts: { colors?: boolean } = {}): string {
  const level = LEVELS[record.level ?? 30] ?? { label: String(record.level), color: 0 };
  const label = level.label.padEnd(5);
  const parts = [clock(record.time), opts.colors ? `\x1b[${level.color}m${label}\x1b[0m` : label];
  const request = requestSummary(record);
  if (request) parts.push(request);
  else {
    if (record.context) parts.push(opts.colors ? `\x1b[90m${record.context}\x1b[0m` : record.context);
    if (record.msg) parts.push(record.msg);
  }
  const extra = Object.fromEntries(Object.entries(record).filter(([key]) => !SHOWN_OR_NOISE.has(key)));
  if (Object.keys(extra).length > 0) parts.push(JSON.stringify(extra));
  const stack = record.err?.stack ?? record.err?.message;
  const line = parts.join(' ');
  return stack ? `${line}\n${stack.replace(/^/gm, '    ')}` : line;
}

/** Nest's wiring report at boot: a line per module and per route (~140 on this app), useful only when debugging. */
const NEST_WIRING = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

/** Whether a person at a terminal sees the record: Nest's wiring report only at LOG_LEVEL=debug or trace. */
export function shownOnTerminal(record: LogRecord, logLevel: string): boolean {
  return !(
    NEST_WIRING.has(record.context ?? '') &&
    (record.level ?? 30) <= 30 &&
    !['debug', 'trace'].includes(logLevel)
  );
}
