import { Global, Module, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { HttpMetricsMiddleware } from './http-metrics.middleware.js';
import { Metrics } from './metrics.js';
import { Tracing } from './tracing.js';

/** Metrics (Prometheus) and tracing (OpenTelemetry), available to every module. */
@Global()
@Module({ providers: [Metrics, Tracing], exports: [Metrics, Tracing] })
export class TelemetryModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    // A named wildcard (path-to-regexp v8): a bare '*' works only through Nest's LegacyRouteConverter, which warns.
    consumer.apply(HttpMetricsMiddleware).forRoutes('/*path');
  }
}
