import { startHttpFake, type HttpFake } from './http-fake.js';

/** A span as an OTLP/HTTP JSON export carries it (ids are hex strings), with its attributes flattened. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, string | number | boolean>;
  status?: { code?: number; message?: string };
}

export interface FakeOtlp {
  /** The collector's base URL (what OTEL_EXPORTER_OTLP_ENDPOINT names). */
  url: string;
  spans: ReceivedSpan[];
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
const valueOf = (v: AnyValue): string | number | boolean =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue ?? ''));

/** An OpenTelemetry collector speaking OTLP/HTTP with JSON bodies on POST /v1/traces (what the Node exporter sends). */
export async function startFakeOtlp(): Promise<FakeOtlp> {
  const spans: ReceivedSpan[] = [];
  const fake: HttpFake = await startHttpFake((req, res) => {
    if (req.method !== 'POST' || req.path !== '/v1/traces') {
      res.writeHead(404).end();
      return undefined;
    }
    const body = typeof req.body === 'string' ? JSON.parse(req.body) : req.body;
    for (const rs of body.resourceSpans ?? []) {
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          spans.push({
            traceId: s.traceId,
            spanId: s.spanId,
            // eslint-disable-next-line @typescript-eslint/prefer-nullish-coalescing -- a root span's '' means none
            parentSpanId: s.parentSpanId || undefined,
            name: s.name,
            status: s.status,
            attributes: Object.fromEntries(
              (s.attributes ?? []).map((a: { key: string; value: AnyValue }) => [a.key, valueOf(a.value)]),
            ),
          });
        }
      }
    }
    return { partialSuccess: {} };
  });
  return { url: fake.url, spans, close: () => fake.close() };
}
