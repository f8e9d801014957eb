import { parse } from 'yaml';
import { SHUTDOWN_DRAIN_MS } from '../../libs/agents/src/engine/run-drives.js';
import { environmentVariableNames, SECRET_VARIABLES } from '../../libs/common/src/config/environment-names.js';
import { readRepoFile, stopSeconds, unknownNames } from './deploy-files.js';

interface Service {
  image?: string;
  build?: string;
  command?: string[] | string;
  environment?: Record<string, string | null>;
  depends_on?: Record<string, { condition: string }> | string[];
  stop_grace_period?: string;
  volumes?: string[];
}
const load = (file: string) => parse(readRepoFile(file), { merge: true }) as { services: Record<string, Service> };

const prod = load('compose.prod.yml').services;
const instances = Object.entries(prod).filter(([, s]) => s.command === undefined && s.build === '.');
const known = environmentVariableNames();

/** A value with a credential in it once `${...}` interpolations are taken out (a URL keeps its user and host). */
function writtenSecret(value: string): boolean {
  const literal = value.replace(/\$\{[^}]*\}/g, '');
  const url = /^[a-z]+:\/\/(?:[^:@/]*(?::([^@/]*))?@)?[^@]*$/.exec(literal);
  return url ? !!url[1] : literal !== '';
}

describe('compose.prod.yml (production-like) and docker-compose.yml (development)', () => {
  it('the development file is still the development one', () => {
    const dev = load('docker-compose.yml').services;
    expect(dev.api.environment?.SEED_DEMO).toBe('true');
    expect(dev.api.environment?.NODE_ENV).toBeUndefined();
  });

  it('runs two Warden instances of the image on one PostgreSQL, behind a reverse proxy that health-checks them', () => {
    expect(instances.map(([name]) => name).sort()).toEqual(['warden-a', 'warden-b']);
    expect(prod.postgres.image).toMatch(/^postgres:\d+/);
    const proxyConfig = prod.proxy.volumes?.find((v) => v.startsWith('./deploy/'))?.split(':')[0];
    const caddyfile = readRepoFile(proxyConfig ?? 'missing');
    expect(caddyfile).toMatch(/reverse_proxy warden-a:3000 warden-b:3000/);
    expect(caddyfile).toMatch(/health_uri \/api\/health/);
    for (const [name, s] of instances) {
      expect([name, s.environment?.DATABASE_URL]).toEqual([name, expect.stringContaining('@postgres:5432/')]);
    }
  });

  it('migrations run once, by the migrate service, before the instances (which never migrate) start', () => {
    expect(prod.migrate.command).toEqual(['node', 'dist/apps/api/src/migrate.js']);
    for (const [, s] of instances) {
      expect(s.environment?.DB_SKIP_MIGRATIONS).toBe('1');
      expect(s.depends_on).toMatchObject({ migrate: { condition: 'service_completed_successfully' } });
    }
  });

  it('signs in through OIDC configured from the environment, and every variable is one the schema knows', () => {
    for (const [name, s] of [...instances, ['migrate', prod.migrate] as const]) {
      const env = s.environment ?? {};
      expect([name, unknownNames(Object.keys(env), known)]).toEqual([name, []]);
    }
    for (const [, s] of instances) {
      expect(s.environment).toMatchObject({
        AUTH_MODE: 'oidc',
        OIDC_ISSUER: expect.stringMatching(/^\$\{OIDC_ISSUER:\?/),
        OIDC_AUDIENCE: expect.stringMatching(/^\$\{OIDC_AUDIENCE:\?/),
      });
    }
  });

  it('no secret is written in the file: each comes from the operator environment', () => {
    const written = Object.values(prod).flatMap((s) =>
      Object.entries(s.environment ?? {}).filter(
        ([name, value]) =>
          (SECRET_VARIABLES.includes(name) || name === 'POSTGRES_PASSWORD') && value !== null && writtenSecret(value),
      ),
    );
    expect(written).toEqual([]);
    expect(writtenSecret('postgres://warden:hunter22@postgres:5432/warden')).toBe(true);
  });

  it('gives each instance time to drain before it is killed', () => {
    for (const [, s] of instances)
      expect(parseInt(s.stop_grace_period ?? '10s', 10)).toBeGreaterThanOrEqual(stopSeconds(SHUTDOWN_DRAIN_MS));
  });
});
