/** SQLSTATE classes/codes that say "the connection or the server went away", not "this statement is wrong". */
const TRANSIENT_CODES = /^(08|57P0[1-3]|53300|40001|40P01)/;
// "already released": TypeORM's QueryRunnerAlreadyReleasedError ("Query runner already released. Cannot run queries
// anymore."), raised when a transaction's connection died under it (seen when connections are killed every 250 ms):
// the next attempt gets a new connection.
const TRANSIENT_MESSAGES = new RegExp(
  [
    'Connection terminated',
    'terminating connection',
    'ECONNRESET',
    'ECONNREFUSED',
    'EPIPE',
    'connection error',
    'timeout exceeded when trying to connect',
    'Connection is not established',
    'query runner (was )?already released',
  ].join('|'),
  'i',
);

/**
 * True for database errors that a retry (on this instance after a backoff, or on another one) can get past: a
 * dropped connection, a restarting server, a serialization failure. A run hitting one is left for recovery rather
 * than failed for good.
 */
export function isTransientDatabaseError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === 'QueryRunnerAlreadyReleasedError') return true;
  const code =
    (err as { code?: unknown; driverError?: { code?: unknown } }).driverError?.code ?? (err as { code?: unknown }).code;
  if (typeof code === 'string' && TRANSIENT_CODES.test(code)) return true;
  const driverMessage = (err as { driverError?: { message?: unknown } }).driverError?.message;
  return (
    TRANSIENT_MESSAGES.test(err.message) ||
    (typeof driverMessage === 'string' && TRANSIENT_MESSAGES.test(driverMessage))
  );
}

const SOCKET_CODES = /^(ECONNRESET|EPIPE|ECONNREFUSED|ETIMEDOUT)$/;
// Only what the PostgreSQL driver (pg) or TypeORM say when the connection went away: no bare socket error codes.
const DROPPED_CONNECTION_MESSAGES = new RegExp(
  [
    'Connection terminated',
    'terminating connection',
    'Connection is not established',
    'timeout exceeded when trying to connect',
    'query runner (was )?already released',
  ].join('|'),
  'i',
);

/**
 * The stricter test for errors out of code that does more than database work (hooks call HTTP services and run
 * processes, whose "connect ECONNREFUSED" is their own failure): true only for a dropped connection to our database
 * (a connection-class SQLSTATE, or the driver's wording). Such an error decides nothing: the run is left for recovery.
 */
export function isDroppedDatabaseConnection(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code =
    (err as { code?: unknown; driverError?: { code?: unknown } }).driverError?.code ?? (err as { code?: unknown }).code;
  if (typeof code === 'string' && TRANSIENT_CODES.test(code)) return true;
  // A socket error TypeORM wraps as a failed query came out of our database's connection (a backend terminated while
  // the driver was reading: "read ECONNRESET"), not out of a hook's own HTTP call.
  if (err.name === 'QueryFailedError' && typeof code === 'string' && SOCKET_CODES.test(code)) return true;
  const driverMessage = (err as { driverError?: { message?: unknown } }).driverError?.message;
  return (
    DROPPED_CONNECTION_MESSAGES.test(err.message) ||
    (typeof driverMessage === 'string' && DROPPED_CONNECTION_MESSAGES.test(driverMessage))
  );
}
