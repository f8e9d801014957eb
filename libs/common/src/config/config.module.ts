import { Global, Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { SecretBox } from '../crypto/secret-box.js';
import { EgressPolicy } from '../http/egress.js';
import { AppConfig } from './app-config.js';
import { validateEnvironment, type EnvironmentInput } from './environment.js';

/**
 * Loads and validates the environment once. `overrides` lets tests boot an app with their own values
 * without touching process.env.
 */
@Global()
@Module({})
export class AppConfigModule {
  static forRoot(overrides: EnvironmentInput = {}): DynamicModule {
    return {
      module: AppConfigModule,
      imports: [
        ConfigModule.forRoot({
          ignoreEnvFile: true,
          load: [() => ({ warden: validateEnvironment({ ...process.env, ...overrides }) })],
        }),
      ],
      providers: [AppConfig, EgressPolicy, SecretBox],
      exports: [AppConfig, EgressPolicy, SecretBox],
    };
  }
}
