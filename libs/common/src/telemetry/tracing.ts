import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { context, propagation, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import type { NodeSDK } from '@opentelemetry/sdk-node';
import { AppConfig } from '../config/app-config.js';

/**
 * Whether spans are recorded. Read on hot paths (every hook) so that with tracing off they cost one boolean check,
 * not a no-op span and a context lookup each.
 */
let enabled = false;

const tracer = () => trace.getTracer('warden');

export function tracingEnabled(): boolean {
  return enabled;
}

/**
 * Runs `fn` inside a new active span (children started in it nest under it); ends it with fn's outcome. `parent`: the
 * `traceHeaders()` of a span this one continues (a parked run's next drive continues its first drive's trace).
 */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span | undefined) => Promise<T>,
  parent?: Record<string, string>,
): Promise<T> {
  if (!enabled) return fn(undefined);
  const ctx = parent ? propagation.extract(context.active(), parent) : context.active();
  return tracer().startActiveSpan(name, { attributes }, ctx, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Records a span for work that already happened (a hook: its duration is measured by the registry). */
export function recordSpan(name: string, attributes: Attributes, durationMs: number, error?: string): void {
  if (!enabled) return;
  const end = Date.now();
  const span = tracer().startSpan(name, { attributes, startTime: end - durationMs });
  if (error) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
  span.end(end);
}

/** `traceparent` (and `tracestate`) of the active span, for an outbound request; empty when tracing is off. */
export function traceHeaders(): Record<string, string> {
  if (!enabled) return {};
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** Adds attributes to the active span (no-op when tracing is off). */
export function annotateSpan(attributes: Attributes): void {
  if (enabled) trace.getActiveSpan()?.setAttributes(attributes);
}

/** The trace id of the active span, if one is recording. */
export function activeTraceId(): string | null {
  if (!enabled) return null;
  const span = trace.getActiveSpan();
  return span?.isRecording() ? span.spanContext().traceId : null;
}

/**
 * OpenTelemetry tracing with the Node SDK, exporting over OTLP/HTTP to `OTEL_EXPORTER_OTLP_ENDPOINT`; off (no SDK,
 * no spans) unless that is set. Spans are made by hand where Warden's work happens (runs, model calls, tool calls,
 * hooks, approval waits); there is no auto-instrumentation.
 */
@Injectable()
export class Tracing implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(Tracing.name);
  private sdk: NodeSDK | undefined;

  constructor(private readonly config: AppConfig) {}

  async onModuleInit(): Promise<void> {
    const endpoint = this.config.otlpEndpoint;
    if (!endpoint || enabled) return;
    // Loaded only when tracing is on: the SDK and its exporters take seconds to import on a busy machine.
    // One after another: they share modules, and parallel dynamic imports of shared modules trip Jest's ESM loader.
    const { NodeSDK } = await import('@opentelemetry/sdk-node');
    const { BatchSpanProcessor } = await import('@opentelemetry/sdk-trace');
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
    const { W3CTraceContextPropagator } = await import('@opentelemetry/core');
    const exporter = new OTLPTraceExporter({ url: `${endpoint}/v1/traces`, headers: this.config.otlpHeaders });
    this.sdk = new NodeSDK({
      serviceName: this.config.otelServiceName,
      spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: this.config.otelExportDelayMs })],
      contextManager: new AsyncLocalStorageContextManager(),
      textMapPropagator: new W3CTraceContextPropagator(),
      instrumentations: [],
      metricReaders: [],
      logRecordProcessors: [],
    });
    this.sdk.start();
    enabled = true;
    this.logger.log(`tracing: exporting spans to ${endpoint}/v1/traces`);
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.sdk) return;
    enabled = false;
    await this.sdk.shutdown().catch((err: unknown) => this.logger.warn(`tracing shutdown: ${(err as Error).message}`));
    // Unregister the globals, so that another SDK (a restarted app in the same process) can register again.
    trace.disable();
    context.disable();
    propagation.disable();
    this.sdk = undefined;
  }
}
