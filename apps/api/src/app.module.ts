import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { ServeStaticModule } from '@nestjs/serve-static';
import { TerminusModule } from '@nestjs/terminus';
import { ValidationPipe } from '@nestjs/common';
import { AgentsModule } from '@warden/agents';
import { AuthModule } from '@warden/auth';
import { ChannelsModule } from '@warden/channels';
import {
  AllExceptionsFilter,
  AppConfig,
  AppConfigModule,
  AuditTrailModule,
  InputLimitsInterceptor,
  logDestination,
  TelemetryModule,
  type EnvironmentInput,
} from '@warden/common';
import { ConfirmationsModule } from '@warden/confirmations';
import { DatabaseModule } from '@warden/database';
import { EvalsModule } from '@warden/evals';
import { HooksModule } from '@warden/hooks';
import { WorkflowsModule } from '@warden/workflows';
import { LoggerModule } from 'nestjs-pino';
import { randomUUID } from 'node:crypto';
import { DemoModule } from './demo/demo.module.js';
import { HealthController } from './health.controller.js';
import { MetricsController } from './metrics.controller.js';
import { consoleStaticOptions } from './console-static.js';

/** Wires the libraries together; holds no business logic. */
@Module({})
export class AppModule {
  /** `extraImports` lets tests add modules (e.g. test-only hooks) to the real app. */
  static forRoot(overrides: EnvironmentInput = {}, extraImports: Array<Type | DynamicModule> = []): DynamicModule {
    return {
      module: AppModule,
      imports: [
        AppConfigModule.forRoot(overrides),
        TelemetryModule,
        LoggerModule.forRootAsync({
          inject: [AppConfig],
          useFactory: (config: AppConfig) => ({
            // A person at a terminal outside production reads compact lines; machines read JSON.
            pinoHttp: [
              {
                level: config.logLevel,
                genReqId: (req, res) => {
                  const incoming = req.headers['x-request-id'];
                  const id = typeof incoming === 'string' && /^[\w.-]{1,64}$/.test(incoming) ? incoming : randomUUID();
                  res.setHeader('x-request-id', id);
                  return id;
                },
                redact: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]'],
                autoLogging: { ignore: (req) => req.url === '/api/health' },
              },
              logDestination(config.prettyLogs, config.logLevel),
            ],
          }),
        }),
        EventEmitterModule.forRoot(),
        TerminusModule,
        DatabaseModule,
        AuditTrailModule,
        AuthModule,
        HooksModule,
        AgentsModule,
        ConfirmationsModule,
        ChannelsModule,
        WorkflowsModule,
        EvalsModule,
        DemoModule,
        ServeStaticModule.forRootAsync({
          inject: [AppConfig],
          useFactory: (config: AppConfig) => consoleStaticOptions(config),
        }),
        ...extraImports,
      ],
      controllers: [HealthController, MetricsController],
      providers: [
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        { provide: APP_INTERCEPTOR, useClass: InputLimitsInterceptor },
        {
          provide: APP_PIPE,
          useFactory: () =>
            new ValidationPipe({
              whitelist: true,
              forbidNonWhitelisted: true,
              transform: true,
              stopAtFirstError: false,
            }),
        },
      ],
    };
  }
}
