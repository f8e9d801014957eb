import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import path from 'node:path';
import { AuthSettings } from './auth-settings.js';
import { commaList, keyValuePairs, matchesNamePattern } from './env-lists.js';
import { DEFAULT_LLM_KEY_ORIGINS, parseLlmKeyOrigins } from './llm-key-origins.js';

/**
 * Typed, validated configuration. With its layers — the server (server-settings.ts) and who signs in
 * (auth-settings.ts) — the only place in the app that knows environment variable names; here: what runs inside it.
 */
@Injectable()
export class AppConfig extends AuthSettings {
  readonly instanceId: string;
  private readonly llmKeyOrigins: Map<string, string>;

  constructor(config: ConfigService) {
    super(config.getOrThrow('warden'));
    // Validated at boot (environment.ts): only a malformed default could be null.
    this.llmKeyOrigins =
      parseLlmKeyOrigins(this.env.LLM_KEY_ORIGINS ?? DEFAULT_LLM_KEY_ORIGINS) ?? new Map<string, string>();
    this.instanceId = this.env.INSTANCE_ID ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  }

  get encryptionKey(): string | undefined {
    return this.env.APP_ENCRYPTION_KEY;
  }
  get hooksDir(): string {
    return path.resolve(this.env.HOOKS_DIR ?? './hooks');
  }
  /** Hosts (`host` or `host:port`, lower case) YAML `http` hooks may call. */
  get hookHttpAllow(): string[] {
    return commaList(this.env.HOOK_HTTP_ALLOW).map((s) => s.toLowerCase());
  }
  get hookHttpSecret(): string | undefined {
    return this.env.HOOK_HTTP_SECRET;
  }
  get redisUrl(): string | undefined {
    return this.env.REDIS_URL;
  }
  get confirmationPollMs(): number {
    return this.env.CONFIRMATION_POLL_MS ?? 1500;
  }
  /** How often each instance looks for due reminders and escalations (one statement for all requests). */
  get confirmationEscalationPollMs(): number {
    return this.env.CONFIRMATION_ESCALATION_POLL_MS ?? 5000;
  }
  get runLeaseMs(): number {
    return this.env.RUN_LEASE_MS ?? 15000;
  }
  /** How often each instance looks for runs whose lease expired (their instance died or stopped). */
  get runRecoveryMs(): number {
    return this.env.RUN_RECOVERY_MS ?? 5000;
  }
  /**
   * A chat or api run waiting for an approval parks (no lease, no timer, no memory in any process; the decision
   * claims it on any instance). Off: it waits in the process that drives it (a decision resumes it a little faster).
   */
  get runParkOnApproval(): boolean {
    return this.env.RUN_PARK_ON_APPROVAL ?? true;
  }
  /**
   * `sampled`: synchronous hooks are timed one by one on a sample of chain runs (libs/hooks hook-timing.ts), 0 ms on
   * the others; `every`: every hook of every run is timed (exact durations, about twice the pipeline's cost).
   */
  get hookTiming(): 'sampled' | 'every' {
    return this.env.HOOK_TIMING ?? 'sampled';
  }
  /** Upper bound for one LLM call, streaming included. */
  get llmTimeoutMs(): number {
    return this.env.LLM_TIMEOUT_MS ?? 60000;
  }
  /** Upper bound for one connector HTTP request. */
  get connectorTimeoutMs(): number {
    return this.env.CONNECTOR_TIMEOUT_MS ?? 30000;
  }

  /** OTLP/HTTP collector base URL (traces go to `<url>/v1/traces`); tracing is off without it. */
  get otlpEndpoint(): string | undefined {
    return this.env.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/\/$/, '');
  }
  /** `key=value,key2=value2` headers for the OTLP exporter (e.g. an API key); never logged. */
  get otlpHeaders(): Record<string, string> {
    return keyValuePairs(this.env.OTEL_EXPORTER_OTLP_HEADERS);
  }
  get otelServiceName(): string {
    return this.env.OTEL_SERVICE_NAME ?? 'warden';
  }
  /** How long finished spans are batched before export (OTEL_BSP_SCHEDULE_DELAY, ms). */
  get otelExportDelayMs(): number {
    return this.env.OTEL_BSP_SCHEDULE_DELAY ?? 5000;
  }
  /**
   * Who may scrape GET /metrics: the bearer METRICS_TOKEN when set; otherwise anyone outside production (and in
   * production with METRICS_PUBLIC=1); otherwise nobody — the series name hooks, tools and approval traffic.
   */
  get metricsAccess(): { kind: 'token'; token: string } | { kind: 'public' } | { kind: 'off' } {
    if (this.env.METRICS_TOKEN) return { kind: 'token', token: this.env.METRICS_TOKEN };
    return !this.isProduction || this.env.METRICS_PUBLIC ? { kind: 'public' } : { kind: 'off' };
  }

  /** Where audit events are forwarded as they are written; none when unset. */
  get auditSink(): { url: string; token?: string; maxAttempts: number; retryMs: number; pollMs: number } | undefined {
    const url = this.env.AUDIT_SINK_URL;
    if (!url) return undefined;
    return {
      url,
      token: this.env.AUDIT_SINK_TOKEN,
      maxAttempts: this.env.AUDIT_SINK_MAX_ATTEMPTS ?? 5,
      retryMs: this.env.AUDIT_SINK_RETRY_MS ?? 1000,
      pollMs: this.env.AUDIT_SINK_POLL_MS ?? 2000,
    };
  }

  /** Seconds between logged chain-head anchors; 0 turns them off. */
  get auditAnchorIntervalS(): number {
    return this.env.AUDIT_ANCHOR_INTERVAL_S ?? 3600;
  }

  /** The patterns of LLM_KEY_ENV_ALLOW (`NAME` or `PREFIX_*`). */
  get llmKeyEnvAllow(): string[] {
    return commaList(this.env.LLM_KEY_ENV_ALLOW ?? 'WARDEN_LLM_KEY_*');
  }

  /**
   * Whether an agent's `api_key_env` may name this variable: only allow-listed names, never the server's own settings.
   */
  llmKeyEnvAllowed(name: string): boolean {
    return matchesNamePattern(this.llmKeyEnvAllow, name);
  }

  /** The origin LLM_KEY_ORIGINS binds this key variable to (where its key may be sent); undefined when none. */
  llmKeyOrigin(name: string): string | undefined {
    return this.llmKeyOrigins.get(name);
  }

  /** Reads an LLM API key named by an agent's `api_key_env`, only when allow-listed. Never logged. */
  llmKeyFromEnv(name: string): string | undefined {
    return this.llmKeyEnvAllowed(name) ? this.env.raw[name] : undefined;
  }

  /**
   * EGRESS_ALLOW entries (CIDRs or host names). Unset outside production, loopback is allowed so the zero-config
   * demo (its connector calls this server's /demo-oa) works; production allows nothing private unless listed.
   */
  get egressAllow(): string[] {
    return commaList(this.env.EGRESS_ALLOW ?? (this.isProduction ? '' : '127.0.0.0/8,::1/128'));
  }
}
