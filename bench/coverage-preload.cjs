/**
 * Preload (`node --require`) for `bench:shape`: V8 precise coverage of a window of the server's life, toggled by
 * SIGWINCH (Nest stops the app on SIGUSR2) — the first signal starts it (counters from zero), the second writes the functions called since then to
 * COVERAGE_OUT (JSON: V8's ScriptCoverage list) and stops. Prints `[coverage] started` / `[coverage] written`.
 */
'use strict';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a `--require` preload is CommonJS
const inspector = require('node:inspector');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a `--require` preload is CommonJS
const fs = require('node:fs');

const session = new inspector.Session();
session.connect();
let on = false;

const post = (method, params) =>
  new Promise((resolve, reject) =>
    session.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res))),
  );

process.on('SIGWINCH', async () => {
  if (!on) {
    await post('Profiler.enable');
    await post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    // Taking it once resets the counters: what follows counts only the window.
    await post('Profiler.takePreciseCoverage');
    on = true;
    process.stderr.write('[coverage] started\n');
    return;
  }
  const { result } = await post('Profiler.takePreciseCoverage');
  fs.writeFileSync(process.env.COVERAGE_OUT, JSON.stringify(result));
  await post('Profiler.stopPreciseCoverage');
  on = false;
  process.stderr.write('[coverage] written\n');
});
