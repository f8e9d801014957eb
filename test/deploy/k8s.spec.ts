import { execFileSync } from 'node:child_process';
import { parseAllDocuments } from 'yaml';
import type { ConfigService } from '@nestjs/config';
import { SHUTDOWN_DRAIN_MS } from '../../libs/agents/src/engine/run-drives.js';
import { AppConfig } from '../../libs/common/src/config/app-config.js';
import { validateEnvironment } from '../../libs/common/src/config/environment.js';
import { environmentVariableNames, SECRET_VARIABLES } from '../../libs/common/src/config/environment-names.js';
import { ROOT, stopSeconds, unknownNames } from './deploy-files.js';
import { type Container, type Manifest, containersOf, envNames, PRIVATE_RANGES, secretRefs } from './k8s-manifests.js';

// kubectl is on the CI machines and these: a missing one is a failure to fix there, not a reason to skip.
const rendered = execFileSync('kubectl', ['kustomize', 'deploy/k8s'], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
const manifests = parseAllDocuments(rendered).map((d) => d.toJS() as Manifest);
const one = (kind: string, name?: string): Manifest => {
  const found = manifests.filter((m) => m.kind === kind && (!name || m.metadata.name === name));
  expect([kind, found.length]).toEqual([kind, 1]);
  return found[0];
};

const deployment = one('Deployment');
const job = one('Job');
const config = one('ConfigMap').data ?? {};
const server = containersOf(deployment).find((c) => c.name === 'warden')!;
const podLabels = deployment.spec.template.metadata.labels as Record<string, string>;
const known = environmentVariableNames();
const appConfig = new AppConfig({ getOrThrow: () => validateEnvironment(config) } as unknown as ConfigService);

describe('deploy/k8s (kustomize)', () => {
  it('renders a Deployment, Service, Ingress, PodDisruptionBudget, migration Job, NetworkPolicy and ConfigMap', () => {
    expect(manifests.map((m) => m.kind).sort()).toEqual(
      ['ConfigMap', 'Deployment', 'Ingress', 'Job', 'NetworkPolicy', 'PodDisruptionBudget', 'Service'].sort(),
    );
    expect(server.envFrom).toEqual([{ configMapRef: { name: one('ConfigMap').metadata.name } }]);
  });

  it('the configuration is valid for the schema in production, given the secrets', () => {
    expect(config.NODE_ENV).toBe('production');
    expect(unknownNames(Object.keys(config), known)).toEqual([]);
    expect(Object.keys(config).filter((n) => SECRET_VARIABLES.includes(n))).toEqual([]);
    const secrets = { DATABASE_URL: 'postgres://u:p@db/warden', APP_ENCRYPTION_KEY: 'x'.repeat(32) };
    expect(() => validateEnvironment({ ...config, ...secrets })).not.toThrow();
  });

  it('every variable a container sets is in the schema (or a model key LLM_KEY_ENV_ALLOW allows, from the Secret)', () => {
    for (const c of [...containersOf(deployment), ...containersOf(job)]) {
      const extra = unknownNames(envNames(c), known);
      expect([c.name, extra.filter((n) => !appConfig.llmKeyEnvAllowed(n))]).toEqual([c.name, []]);
      expect([c.name, extra.filter((n) => !secretRefs(c).has(n))]).toEqual([c.name, []]);
    }
  });

  it('every secret variable comes from a Secret (secretKeyRef), none has a written value', () => {
    expect(SECRET_VARIABLES.filter((n) => !secretRefs(server).has(n))).toEqual([]);
    for (const c of [...containersOf(deployment), ...containersOf(job)]) {
      const written = (c.env ?? []).filter((e) => SECRET_VARIABLES.includes(e.name) && !e.valueFrom?.secretKeyRef);
      expect([c.name, written]).toEqual([c.name, []]);
    }
    // Required ones are not optional: a missing key stops the pod from starting rather than booting without it.
    expect(secretRefs(server).get('DATABASE_URL')?.optional).toBeUndefined();
    expect(secretRefs(server).get('APP_ENCRYPTION_KEY')?.optional).toBeUndefined();
  });

  it('readiness and liveness probe /api/health on the port the server listens on', () => {
    const port = server.ports?.find((p) => p.name === 'http');
    expect(String(port?.containerPort)).toBe(config.PORT);
    for (const probe of [server.readinessProbe, server.livenessProbe])
      expect(probe?.httpGet).toEqual({ path: '/api/health', port: 'http' });
  });

  it('a stopping pod gets preStop + the drain time before it is killed; runs as non-root', () => {
    const [sleep, seconds] = server.lifecycle?.preStop?.exec?.command ?? [];
    expect(sleep).toBe('sleep');
    const grace = deployment.spec.template.spec.terminationGracePeriodSeconds as number;
    expect(grace).toBeGreaterThanOrEqual(Number(seconds) + stopSeconds(SHUTDOWN_DRAIN_MS));
    for (const m of [deployment, job])
      expect(m.spec.template.spec.securityContext).toMatchObject({ runAsNonRoot: true });
  });

  it('migrations run once per release, by the Job; the instances never migrate and wait for it', () => {
    expect(config.DB_SKIP_MIGRATIONS).toBe('1');
    const [migrate] = containersOf(job);
    expect(migrate.command).toEqual(['node', 'dist/apps/api/src/migrate.js']);
    expect(migrate.image).toBe(server.image);
    expect(job.spec.template.spec.restartPolicy).toBe('Never');
    const wait = (deployment.spec.template.spec.initContainers as Container[])[0];
    expect([wait.image, wait.command]).toEqual([server.image, ['node', 'dist/apps/api/src/migrate.js', '--wait']]);
  });

  it('the PodDisruptionBudget, the Service and the Ingress reach exactly the server pods', () => {
    const pdb = one('PodDisruptionBudget').spec;
    expect(pdb.selector).toEqual(deployment.spec.selector);
    expect(pdb.maxUnavailable ?? 0).toBeLessThan(deployment.spec.replicas as number);
    const selects = (selector: Record<string, string>) =>
      Object.entries(selector).every(([k, v]) => podLabels[k] === v);
    expect(selects(one('Service').spec.selector as Record<string, string>)).toBe(true);
    expect(one('Service').spec.selector).toHaveProperty(['app.kubernetes.io/component'], 'server');
    const rules = one('Ingress').spec.rules as Array<{
      http: { paths: Array<{ backend: { service: { name: string } } }> };
    }>;
    expect(rules[0].http.paths[0].backend.service.name).toBe(one('Service').metadata.name);
  });

  it('the NetworkPolicy lets the pods reach public addresses, and of private networks only those EGRESS_ALLOW lists (and DNS, the database)', () => {
    const policy = one('NetworkPolicy').spec;
    expect(policy.policyTypes).toContain('Egress');
    expect(policy.podSelector).toEqual({ matchLabels: { 'app.kubernetes.io/name': 'warden' } });
    const egress = policy.egress as Array<{
      to: Array<{ ipBlock?: { cidr: string; except?: string[] } }>;
      ports?: Array<{ port: number }>;
    }>;
    const blocks = egress.flatMap((rule) =>
      rule.to.flatMap((to) => (to.ipBlock ? [{ ...to.ipBlock, ports: rule.ports }] : [])),
    );
    const open = blocks.find((b) => b.cidr === '0.0.0.0/0');
    expect(open?.except).toEqual(expect.arrayContaining(PRIVATE_RANGES));
    const privateBlocks = blocks.filter((b) => b !== open);
    const database = privateBlocks.filter((b) => b.ports?.length === 1 && b.ports[0].port === 5432);
    expect(database).toHaveLength(1);
    expect(
      privateBlocks
        .filter((b) => !database.includes(b))
        .map((b) => b.cidr)
        .sort(),
    ).toEqual(appConfig.egressAllow.sort());
  });
});
