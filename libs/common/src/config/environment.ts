import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Max,
  Min,
  MinLength,
  ValidateIf,
  validateSync,
} from 'class-validator';

/** Default HS256 secret for AUTH_MODE=dev; the server warns loudly whenever it is in use. */
export const DEV_AUTH_SECRET_DEFAULT = 'warden-dev-secret-not-for-production';

const toBool = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : ['1', 'true', 'yes', 'on'].includes(String(value).toLowerCase());

const toInt = ({ value }: { value: unknown }) => (value === undefined || value === '' ? undefined : Number(value));

/** Every environment variable Warden reads. Validated once at boot; a bad value stops the boot naming it. */
export class Environment {
  @IsOptional() @IsIn(['development', 'production', 'test']) NODE_ENV?: string;

  @IsOptional() @Transform(toInt) @IsInt({ message: 'PORT must be an integer between 0 and 65535' }) @Min(0) @Max(65535)
  PORT?: number;

  @IsOptional() @IsString() HOST?: string;
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true }, { message: 'PUBLIC_URL must be an absolute URL' })
  PUBLIC_URL?: string;

  @IsOptional() @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) LOG_LEVEL?: string;

  @IsOptional() @IsString() @MinLength(1) DATABASE_URL?: string;
  @IsOptional() @IsString() PGLITE_DIR?: string;
  @IsOptional() @Transform(toBool) @IsBoolean() DB_SKIP_MIGRATIONS?: boolean;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(200) DB_POOL_SIZE?: number;
  @IsOptional() @Transform(toBool) @IsBoolean() SEED_DEMO?: boolean;

  @IsOptional() @IsIn(['dev', 'oidc'], { message: 'AUTH_MODE must be "dev" or "oidc"' }) AUTH_MODE?: string;
  @IsOptional() @IsString() @MinLength(16, { message: 'AUTH_DEV_SECRET must be at least 16 characters' })
  AUTH_DEV_SECRET?: string;

  @ValidateIf((env: Environment) => env.AUTH_MODE === 'oidc' && !env.OIDC_JWKS_URL)
  @IsUrl({ require_tld: false, require_protocol: true }, {
    message: 'OIDC_ISSUER must be set to the issuer URL when AUTH_MODE=oidc (or set OIDC_JWKS_URL)',
  })
  OIDC_ISSUER?: string;

  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true }, { message: 'OIDC_JWKS_URL must be a URL' })
  OIDC_JWKS_URL?: string;
  @IsOptional() @IsString() OIDC_AUDIENCE?: string;
  @IsOptional() @IsString() @MinLength(1) OIDC_CLIENT_ID?: string;
  @IsOptional() @IsString() @MinLength(1) AUTH_ORG_CLAIM?: string;
  @IsOptional() @IsString() @MinLength(1) AUTH_ROLES_CLAIM?: string;

  @IsOptional() @IsString() @MinLength(16, { message: 'APP_ENCRYPTION_KEY must be at least 16 characters' }) APP_ENCRYPTION_KEY?: string;
  @IsOptional() @IsString() HOOKS_DIR?: string;
  @IsOptional() @IsString() @MinLength(1) CONSOLE_DIR?: string;
  @IsOptional() @IsString() REDIS_URL?: string;
  @IsOptional() @IsString() INSTANCE_ID?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(50) CONFIRMATION_POLL_MS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1000) RUN_LEASE_MS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(100) RUN_RECOVERY_MS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(100) LLM_TIMEOUT_MS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(100) CONNECTOR_TIMEOUT_MS?: number;
}

export type EnvironmentInput = Record<string, string | undefined>;

/** Validates raw environment values; throws an Error whose message names each bad variable. */
export function validateEnvironment(raw: EnvironmentInput): Environment & { raw: EnvironmentInput } {
  const env = plainToInstance(Environment, raw, { enableImplicitConversion: false });
  const errors = validateSync(env, { skipMissingProperties: false, forbidUnknownValues: false });
  if (errors.length > 0) {
    const lines = errors.map((e) => `  - ${e.property}=${JSON.stringify(raw[e.property] ?? null)}: ${Object.values(e.constraints ?? {}).join('; ')}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return Object.assign(env, { raw });
}
