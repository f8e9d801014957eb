/**
 * The span timeline of a few sequential chat runs (model -> one connector call -> answer): when each span of the run's
 * trace starts and how long it lasts, from the server's own OTLP export (`npm run bench:spans`, after `npm run build`).
 * A tool for finding where a run's wall time goes between its SQL statements (`bench:trace` shows those).
 * SPAN_GATED=1: each run waits for an approval; the timeline marks the decision's POST and the connector call.
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
const GATED = process.env.SPAN_GATED === '1';

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
/** A run that stops for an approval, then the approval: when it was posted and when the connector was called. */
async function approveOne(): Promise<{ decided: number; paid: number }> {
  const abort = new AbortController();
  const text = await app.chat('pay amount 60000', 'confirmation_pending', abort);
  const id = /"confirmation_id":"([^"]+)"/.exec(text)?.[1] ?? '';
  const calls = app.oaRequests.length;
  const decided = performance.timeOrigin + performance.now();
  await app.api('POST', `/api/confirmations/${id}/decision`, { decision: 'approve' });
  while (app.oaRequests.length === calls) await new Promise((r) => setImmediate(r));
  abort.abort();
  return { decided, paid: app.oaRequests.at(-1)?.at ?? decided };
}
try {
  /** Per gated run: when the decision was posted and when the connector call arrived (epoch ms). */
  const marks: Array<{ decided: number; paid: number }> = [];
  for (let i = 0; i < RUNS; i++) {
    if (!GATED) await app.chat('pay amount 100', 'done');
    else marks.push(await approveOne());
  }
  if (GATED) {
    const gaps = marks.map((m) => m.paid - m.decided).sort((a, b) => a - b);
    const at = (q: number) => gaps[Math.min(gaps.length - 1, Math.floor(q * gaps.length))].toFixed(1);
    console.log(`decision -> connector call over ${gaps.length} runs: p50 ${at(0.5)} ms, p90 ${at(0.9)} ms`);
  }
  await new Promise((r) => setTimeout(r, 1500));
  const traces = new Map<string, Span[]>();
  for (const s of spans) traces.set(s.traceId, [...(traces.get(s.traceId) ?? []), s]);
  const ms = (ns: string | number) => Number(ns) / 1e6;
  for (const trace of [...traces.values()].filter((t) => t.some((s) => s.name === 'run')).slice(-SHOW)) {
    const t0 = Math.min(...trace.map((s) => ms(s.startTimeUnixNano)));
    const mark = marks.find((m) => m.decided >= t0 && m.decided - t0 < 60_000);
    if (mark) {
      const at = (t: number) => (t - t0).toFixed(2).padStart(7);
      trace.push({
        traceId: '',
        name: '(decision posted)',
        startTimeUnixNano: String(mark.decided * 1e6),
        endTimeUnixNano: String(mark.decided * 1e6),
      });
      // Both marks are read on this process's clock: their difference is exact, their place among the server's spans
      // only as good as the two processes' clocks agree (a few ms).
      console.log(
        `decision posted at +${at(mark.decided)} ms, connector called at +${at(mark.paid)} ms (${(mark.paid - mark.decided).toFixed(1)} ms later)`,
      );
    }
    trace.sort((a, b) => ms(a.startTimeUnixNano) - ms(b.startTimeUnixNano));
    for (const s of trace) {
      const start = (ms(s.startTimeUnixNano) - t0).toFixed(2).padStart(7);
      console.log(
        `+${start} ms ${(ms(s.endTimeUnixNano) - ms(s.startTimeUnixNano)).toFixed(2).padStart(7)} ms  ${s.name}`,
      );
    }
    console.log('--');
  }
} finally {
  await app.close('SIGTERM');
  collector.close();
}
