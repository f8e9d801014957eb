/**
 * Preload (`node --require`) for process tests and benchmarks: counts the SQL statements the server process sends
 * through `pg` (pool queries and LISTEN connections alike), so a test can see what an instance does while idle.
 *
 * - On SIGWINCH it prints one line `[statement-counter] {"ticks":…,"statements":…,"recent":[…]}` to stderr.
 * - With STATEMENT_COUNTER_TICK_MS set, it also prints that line every tick: `ticks` counts them, a barrier that
 *   proves the process's own event loop has lived through that many intervals (a counter, not a sleep in the test).
 * `recent` lists the first words of the last statements (STATEMENT_COUNTER_RECENT of them, 10 unless set), to name
 * the culprit when a count is not what was expected.
 */
'use strict';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a `--require` preload is CommonJS
const pg = require('pg');

let statements = 0;
let ticks = 0;
const recent = [];
const keep = Number(process.env.STATEMENT_COUNTER_RECENT) || 10;

const originalQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function countedQuery(config, ...rest) {
  statements += 1;
  const text = typeof config === 'string' ? config : config && config.text;
  recent.push(
    String(text ?? '')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 120),
  );
  if (recent.length > keep) recent.shift();
  return originalQuery.call(this, config, ...rest);
};

function report() {
  process.stderr.write(`[statement-counter] ${JSON.stringify({ ticks, statements, recent })}\n`);
}

process.on('SIGWINCH', report);
const tickMs = Number(process.env.STATEMENT_COUNTER_TICK_MS);
if (tickMs > 0) {
  setInterval(() => {
    ticks += 1;
    report();
  }, tickMs).unref();
}
