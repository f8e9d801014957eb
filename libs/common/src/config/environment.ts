import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  MinLength,
  ValidateBy,
  ValidateIf,
  validateSync,
} from 'class-validator';
import { jsonText } from '../json-text.js';
import { LLM_KEY_ORIGINS_FORMAT, parseLlmKeyOrigins } from './llm-key-origins.js';

/** Default HS256 secret for AUTH_MODE=dev; the server warns loudly whenever it is in use. */
export const DEV_AUTH_SECRET_DEFAULT = 'warden-dev-secret-not-for-production';

const toBool = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : ['1', 'true', 'yes', 'on'].includes(jsonText(value).toLowerCase());

/** A yes/no variable that refuses anything else (a typo must not silently mean "no"). */
const toStrictBool = ({ value }: { value: unknown }) => {
  if (value === undefined || value === '') return undefined;
  const v = jsonText(value).toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  return value;
};

const toInt = ({ value }: { value: unknown }) => (value === undefined || value === '' ? undefined : Number(value));

/** Every environment variable Warden reads. Validated once at boot; a bad value stops the boot naming it. */
export class Environment {
  @IsOptional() @IsIn(['development', 'production', 'test']) NODE_ENV?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'PORT must be an integer between 0 and 65535' })
  @Min(0)
  @Max(65535)
  PORT?: number;

  @IsOptional() @IsString() HOST?: string;
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true }, { message: 'PUBLIC_URL must be an absolute URL' })
  PUBLIC_URL?: string;

  @IsOptional() @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) LOG_LEVEL?: string;

  @IsOptional() @IsString() @MinLength(1) DATABASE_URL?: string;
  @IsOptional() @IsString() PGLITE_DIR?: string;
  @IsOptional() @Transform(toBool) @IsBoolean() DB_SKIP_MIGRATIONS?: boolean;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(200) DB_POOL_SIZE?: number;
  /** Long statements prepared once per connection; off for a pooler that cannot keep them. */
  @IsOptional()
  @Transform(toStrictBool)
  @IsBoolean({ message: 'DB_NAMED_STATEMENTS must be 1 or 0 (true/false, yes/no, on/off)' })
  DB_NAMED_STATEMENTS?: boolean;
  @IsOptional() @Transform(toBool) @IsBoolean() SEED_DEMO?: boolean;

  @IsOptional() @IsIn(['dev', 'oidc'], { message: 'AUTH_MODE must be "dev" or "oidc"' }) AUTH_MODE?: string;
  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'AUTH_DEV_SECRET must be at least 16 characters' })
  AUTH_DEV_SECRET?: string;

  @IsOptional() @Transform(toBool) @IsBoolean() AUTH_ALLOW_DEV_IN_PRODUCTION?: boolean;
  @IsOptional() @Transform(toInt) @IsInt() @Min(60) AUTH_TOKEN_MAX_LIFETIME_S?: number;

  // A token is only as trustworthy as its issuer and audience: both are pinned whenever OIDC is on.
  @ValidateIf((env: Environment) => oidcOn(env))
  @IsUrl(
    { require_tld: false, require_protocol: true },
    {
      message: 'OIDC_ISSUER must be set to the issuer URL when AUTH_MODE=oidc (tokens of any other issuer are refused)',
    },
  )
  OIDC_ISSUER?: string;

  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true }, { message: 'OIDC_JWKS_URL must be a URL' })
  OIDC_JWKS_URL?: string;
  @ValidateIf((env: Environment) => oidcOn(env))
  @Matches(/\S/, { message: 'OIDC_AUDIENCE must be set when AUTH_MODE=oidc (the client id tokens must be issued for)' })
  OIDC_AUDIENCE?: string;
  @IsOptional() @IsString() @MinLength(1) OIDC_CLIENT_ID?: string;
  /**
   * Scopes the console asks for besides `openid profile email`, space-separated (the API's scope, `offline_access`).
   */
  @IsOptional()
  @Matches(/^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/, {
    message: 'OIDC_SCOPES must be scope names separated by single spaces (e.g. "api://warden/access offline_access")',
  })
  OIDC_SCOPES?: string;
  @IsOptional() @IsString() @MinLength(1) AUTH_USER_CLAIM?: string;
  @IsOptional() @IsString() @MinLength(1) AUTH_ORG_CLAIM?: string;
  @IsOptional() @IsString() @MinLength(1) AUTH_ROLES_CLAIM?: string;
  /** Chat identities asserted by the IdP, e.g. `feishu=feishu_open_id,slack=slack_user_id` (platform=claim). */
  @IsOptional()
  @Matches(/^(feishu|slack|wecom)=[^,=\s]+(,(feishu|slack|wecom)=[^,=\s]+)*$/, {
    message: 'AUTH_IDENTITY_CLAIMS must list platform=claim pairs, e.g. feishu=feishu_open_id,slack=slack_user_id',
  })
  AUTH_IDENTITY_CLAIMS?: string;

  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'APP_ENCRYPTION_KEY must be at least 16 characters' })
  APP_ENCRYPTION_KEY?: string;
  @IsOptional() @IsString() HOOKS_DIR?: string;
  @IsOptional() @IsString() @MinLength(1) CONSOLE_DIR?: string;
  @IsOptional() @IsString() REDIS_URL?: string;
  @IsOptional() @IsString() INSTANCE_ID?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(50) CONFIRMATION_POLL_MS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(50) CONFIRMATION_ESCALATION_POLL_MS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1000) RUN_LEASE_MS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(100) RUN_RECOVERY_MS?: number;
  @IsOptional() @Transform(toBool) @IsBoolean() RUN_PARK_ON_APPROVAL?: boolean;
  @IsOptional() @IsIn(['sampled', 'every']) HOOK_TIMING?: 'sampled' | 'every';
  @IsOptional() @Transform(toInt) @IsInt() @Min(100) LLM_TIMEOUT_MS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(100) CONNECTOR_TIMEOUT_MS?: number;

  /** Tracing is on only when an OTLP endpoint is set (the standard OTEL_* variables). */
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true }, { message: 'OTEL_EXPORTER_OTLP_ENDPOINT must be a URL' })
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  @IsOptional() @IsString() OTEL_EXPORTER_OTLP_HEADERS?: string;
  @IsOptional() @IsString() @MinLength(1) OTEL_SERVICE_NAME?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) OTEL_BSP_SCHEDULE_DELAY?: number;
  @IsOptional()
  @IsString()
  @Matches(/^\S{16,}$/, { message: 'METRICS_TOKEN must be at least 16 characters without spaces' })
  METRICS_TOKEN?: string;
  /** GET /metrics without a token in production (a scrape network nobody else reaches). */
  @IsOptional()
  @Transform(toStrictBool)
  @IsBoolean({ message: 'METRICS_PUBLIC must be 1 or 0 (true/false, yes/no, on/off)' })
  METRICS_PUBLIC?: boolean;
  /** Webhook that receives every audit event as it is written (JSON batches, at-least-once). */
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true }, { message: 'AUDIT_SINK_URL must be an absolute URL' })
  AUDIT_SINK_URL?: string;
  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'AUDIT_SINK_TOKEN must be at least 16 characters' })
  AUDIT_SINK_TOKEN?: string;
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(100) AUDIT_SINK_MAX_ATTEMPTS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(10) AUDIT_SINK_RETRY_MS?: number;
  @IsOptional() @Transform(toInt) @IsInt() @Min(100) AUDIT_SINK_POLL_MS?: number;
  /** Seconds between logged audit chain anchors (0 = off). */
  @IsOptional() @Transform(toInt) @IsInt() @Min(0) AUDIT_ANCHOR_INTERVAL_S?: number;
  /** Comma-separated names an agent's `api_key_env` may name; `PREFIX_*` allows a prefix. */
  @IsOptional() @IsString() LLM_KEY_ENV_ALLOW?: string;
  /**
   * `NAME=https://origin,...`: the one origin each allowed key variable may be sent to (a key with none is refused).
   */
  @IsOptional()
  @ValidateBy({
    name: 'llmKeyOrigins',
    validator: {
      validate: (v: unknown) => typeof v === 'string' && parseLlmKeyOrigins(v) !== null,
      defaultMessage: () => LLM_KEY_ORIGINS_FORMAT,
    },
  })
  LLM_KEY_ORIGINS?: string;
  /** Comma-separated CIDRs and host names outbound tenant calls may reach although they are private/loopback. */
  @IsOptional() @IsString() EGRESS_ALLOW?: string;
  /** Comma-separated hosts (`host` or `host:port`) that YAML `http` hooks may call; none when unset. */
  @IsOptional() @IsString() HOOK_HTTP_ALLOW?: string;
  /** Signs every HTTP hook request (X-Warden-Signature: HMAC-SHA256 of `<timestamp>.<body>`). */
  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'HOOK_HTTP_SECRET must be at least 16 characters' })
  HOOK_HTTP_SECRET?: string;
}

const oidcOn = (env: Environment): boolean =>
  env.AUTH_MODE === 'oidc' || (!env.AUTH_MODE && (!!env.OIDC_ISSUER || !!env.OIDC_JWKS_URL));

/** Rules across variables that decide whether this server may start in production at all. */
function productionProblems(env: Environment): string[] {
  if (env.NODE_ENV !== 'production') return [];
  const problems: string[] = [];
  if (!oidcOn(env)) {
    const secretOk = (env.AUTH_DEV_SECRET?.length ?? 0) >= 32;
    if (env.AUTH_DEV_SECRET === DEV_AUTH_SECRET_DEFAULT) {
      // Anyone can read it in the source: tokens signed with it would be admin of every org.
      problems.push(
        '  - AUTH_DEV_SECRET is the published default secret: ' +
          'with NODE_ENV=production choose your own (32+ characters)',
      );
    } else if (!secretOk || !env.AUTH_ALLOW_DEV_IN_PRODUCTION) {
      problems.push(
        '  - NODE_ENV=production needs real authentication: set AUTH_MODE=oidc with OIDC_ISSUER and OIDC_AUDIENCE, ' +
          'or (not recommended) AUTH_DEV_SECRET of at least 32 characters together with AUTH_ALLOW_DEV_IN_PRODUCTION=1',
      );
    }
  }
  if (env.SEED_DEMO) problems.push('  - SEED_DEMO=true: the demo seed is not available when NODE_ENV=production');
  return problems;
}

function metricsProblems(env: Environment): string[] {
  return env.METRICS_PUBLIC && env.METRICS_TOKEN
    ? ['  - METRICS_PUBLIC=1 and METRICS_TOKEN are both set: /metrics is either public or behind the token; unset one']
    : [];
}

export type EnvironmentInput = Record<string, string | undefined>;

/** Validates raw environment values; throws an Error whose message names each bad variable. */
export function validateEnvironment(raw: EnvironmentInput): Environment & { raw: EnvironmentInput } {
  const env = plainToInstance(Environment, raw, { enableImplicitConversion: false });
  const errors = validateSync(env, { skipMissingProperties: false, forbidUnknownValues: false });
  const lines = errors.map(
    (e) =>
      `  - ${e.property}=${JSON.stringify(raw[e.property] ?? null)}: ${Object.values(e.constraints ?? {}).join('; ')}`,
  );
  if (errors.length === 0) lines.push(...productionProblems(env), ...metricsProblems(env));
  if (lines.length > 0) {
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return Object.assign(env, { raw });
}
