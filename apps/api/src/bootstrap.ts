import 'reflect-metadata';
import type { DynamicModule, INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { AppConfig, type EnvironmentInput } from '@warden/common';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module.js';
import { drainGate } from './drain-gate.js';
import { precompressedAssets } from './precompressed-assets.js';
import { securityHeaders } from './security-headers.js';

/** Builds the configured HTTP application; used by main.ts and by e2e tests (with env overrides). */
export async function createApp(
  overrides: EnvironmentInput = {},
  extraImports: Array<Type | DynamicModule> = [],
): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(overrides, extraImports), {
    // Chat-app callbacks are verified over the exact bytes received.
    rawBody: true,
    bufferLogs: true,
    // On shutdown, open event streams are closed instead of holding the server open until they end (runs outlive
    // them: a client reattaches with Last-Event-ID to any instance).
    forceCloseConnections: true,
    // A boot error (e.g. invalid configuration) is thrown to the caller, which prints it and exits.
    abortOnError: false,
  });
  app.useLogger(app.get(Logger));
  // Before any route or static file: every response, errors included, carries them.
  app.use(securityHeaders(app.get(AppConfig)));
  app.use(drainGate());
  app.use(precompressedAssets(app.get(AppConfig).consoleDir));
  app.setGlobalPrefix('api', { exclude: ['demo-oa/{*path}', 'metrics', 'scim/v2/{*path}'] });
  app.enableShutdownHooks();
  // SCIM clients send application/scim+json (RFC 7644 §3.1).
  app.useBodyParser('json', { limit: '2mb', type: ['application/json', 'application/scim+json'] });
  app.useBodyParser('urlencoded', { limit: '2mb', extended: true });
  // Built on the first request for it, not at every boot (a few hundred ms of metadata scanning).
  SwaggerModule.setup('api/docs', app, () => openApiDocument(app), { jsonDocumentUrl: 'api/docs-json' });
  return app;
}

/** The OpenAPI document of the routes (also what scripts/openapi.ts turns into the console's typed client). */
export function openApiDocument(app: INestApplication): OpenAPIObject {
  return SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Warden')
      .setDescription('Enterprise agent platform: hooks around the LLM loop')
      .setVersion('0.1')
      .addBearerAuth()
      .build(),
  );
}
