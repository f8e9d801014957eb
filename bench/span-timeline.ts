/**
 * The span timeline of a few sequential chat runs (model -> one connector call -> answer): when each span of the run's
 * trace starts and how long it lasts, from the server's own OTLP export (`npm run bench:spans`, after `npm run build`).
 * A tool for finding where a run's wall time goes between its SQL statements (`bench:trace` shows those).
 */
import http from 'node:http';
import { startPayBenchApp } from './pay-bench-app.js';

interface Span {
  traceId: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
}
const RUNS = Number(process.env.SPAN_RUNS ?? 30);
const SHOW = Number(process.env.SPAN_SHOW ?? 3);

/** A collector of OTLP/HTTP JSON exports that keeps the spans as sent (times included). */
const spans: Span[] = [];
const collector = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString('utf8')));
  req.on('end', () => {
    const sent = JSON.parse(body) as { resourceSpans?: Array<{ scopeSpans?: Array<{ spans: Span[] }> }> };
    for (const r of sent.resourceSpans ?? []) for (const s of r.scopeSpans ?? []) spans.push(...s.spans);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
const { port } = collector.address() as { port: number };
const app = await startPayBenchApp('spans', {
  env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_BSP_SCHEDULE_DELAY: '200' },
});
try {
  for (let i = 0; i < RUNS; i++) await app.chat('pay amount 100', 'done');
  await new Promise((r) => setTimeout(r, 1500));
  const traces = new Map<string, Span[]>();
  for (const s of spans) traces.set(s.traceId, [...(traces.get(s.traceId) ?? []), s]);
  const ms = (ns: string | number) => Number(ns) / 1e6;
  for (const trace of [...traces.values()].filter((t) => t.some((s) => s.name === 'run')).slice(-SHOW)) {
    const t0 = Math.min(...trace.map((s) => ms(s.startTimeUnixNano)));
    trace.sort((a, b) => ms(a.startTimeUnixNano) - ms(b.startTimeUnixNano));
    for (const s of trace) {
      const start = (ms(s.startTimeUnixNano) - t0).toFixed(2).padStart(7);
      console.log(`+${start} ms ${(ms(s.endTimeUnixNano) - ms(s.startTimeUnixNano)).toFixed(2).padStart(7)} ms  ${s.name}`);
    }
    console.log('--');
  }
} finally {
  await app.close('SIGTERM');
  collector.close();
}
