/** Shapes of the rendered Kubernetes manifests that test/deploy/k8s.spec.ts reads. */
export interface Manifest {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec: Record<string, unknown> & { template: { metadata: Record<string, unknown>; spec: Record<string, unknown> } };
  data?: Record<string, string>;
}

interface SecretKeyRef {
  name: string;
  key: string;
  optional?: boolean;
}
export interface Container {
  name: string;
  image: string;
  command?: string[];
  env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: SecretKeyRef; fieldRef?: unknown } }>;
  envFrom?: unknown[];
  ports?: Array<{ name: string; containerPort: number }>;
  readinessProbe?: { httpGet?: unknown };
  livenessProbe?: { httpGet?: unknown };
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
}

/** Init containers and containers of a Deployment's or Job's pod. */
export const containersOf = (m: Manifest): Container[] => [
  ...((m.spec.template.spec.initContainers as Container[] | undefined) ?? []),
  ...(m.spec.template.spec.containers as Container[]),
];

export const envNames = (c: Container): string[] => (c.env ?? []).map((e) => e.name);

/** The container's variables taken from a Secret, by name. */
export const secretRefs = (c: Container): Map<string, SecretKeyRef> =>
  new Map(
    (c.env ?? []).flatMap((e) => (e.valueFrom?.secretKeyRef ? [[e.name, e.valueFrom.secretKeyRef] as const] : [])),
  );

/** Private, shared, link-local (cloud metadata) and loopback IPv4 ranges: never open to the pods wholesale. */
export const PRIVATE_RANGES = [
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '100.64.0.0/10',
  '169.254.0.0/16',
  '127.0.0.0/8',
];
