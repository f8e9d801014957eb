import { getMetadataStorage } from 'class-validator';
import { Environment } from './environment.js';

/**
 * The variables that hold credentials (a password inside DATABASE_URL/REDIS_URL, keys, tokens, an OTLP
 * Authorization header): deployments take them from a secret store — Kubernetes `secretKeyRef`, compose `${...}` from
 * the operator's environment — never from a file in the repository. `test/deploy` holds the manifests to this list.
 */
export const SECRET_VARIABLES: readonly string[] = [
  'DATABASE_URL',
  'REDIS_URL',
  'AUTH_DEV_SECRET',
  'APP_ENCRYPTION_KEY',
  'METRICS_TOKEN',
  'AUDIT_SINK_TOKEN',
  'HOOK_HTTP_SECRET',
  'OTEL_EXPORTER_OTLP_HEADERS',
];

/** Every variable the Environment schema declares (read from its validation metadata: one place lists them). */
export function environmentVariableNames(): string[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(Environment, '', true, false);
  return [...new Set(metadata.map((m) => m.propertyName))].sort();
}
