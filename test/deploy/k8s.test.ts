/**
 * deploy/k8s/ cannot be applied here (no cluster), so its manifests are checked for what would
 * break a deployment or open it: commands dropflow does not have, an environment it refuses, a
 * fleet setting per pod (the workers find each other), a worker without a memory limit to size
 * itself from, a secret in clear, an autoscaler aimed elsewhere, a port published beyond the
 * cluster.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { createProgram } from '../../src/cli/main.js';
import { loadConfig } from '../../src/config/environment.js';

const DIR = 'deploy/k8s';

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    secretKeyRef?: { name: string; key: string };
    configMapKeyRef?: { name: string; key: string };
  };
}

interface Container {
  name: string;
  image: string;
  args?: string[];
  command?: string[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  ports?: { containerPort: number; hostPort?: number; name?: string }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  readinessProbe?: { httpGet?: { path: string } };
  livenessProbe?: { httpGet?: { path: string } };
}

interface PodSpec {
  containers: Container[];
  hostNetwork?: boolean;
}

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  /** ConfigMap */
  data?: Record<string, string>;
  spec?: {
    replicas?: number;
    selector?: { matchLabels?: Record<string, string> } | Record<string, string>;
    template?: { metadata?: { labels?: Record<string, string> }; spec: PodSpec };
    /** Service */
    type?: string;
    externalIPs?: string[];
    ports?: { port: number; nodePort?: number }[];
    /** HorizontalPodAutoscaler */
    scaleTargetRef?: { apiVersion: string; kind: string; name: string };
    minReplicas?: number;
    metrics?: { type: string; resource?: { name: string } }[];
  };
}

const kustomization = parseAllDocuments(
  readFileSync(join(DIR, 'kustomization.yaml'), 'utf8'),
)[0]!.toJS() as { resources: string[]; images: { name: string }[] };

const manifests: Manifest[] = kustomization.resources.flatMap((file) =>
  parseAllDocuments(readFileSync(join(DIR, file), 'utf8')).map((d) => d.toJS() as Manifest),
);

const ofKind = (kind: string) => manifests.filter((m) => m.kind === kind);
const pods = manifests.filter((m) => m.spec?.template !== undefined);
const containersOf = (m: Manifest) => m.spec?.template?.spec.containers ?? [];
/** The Deployment whose containers run `dropflow <command>`. */
const running = (command: string) =>
  ofKind('Deployment').find((d) => containersOf(d).some((c) => c.args?.[0] === command));

const configMaps = new Map(ofKind('ConfigMap').map((m) => [m.metadata.name, m.data ?? {}]));
/** Any value stands for a Secret's: the test checks where it comes from, not what it is. */
const SECRET_VALUES: Record<string, string> = {
  DROPFLOW_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  SUPPLIER_API_KEY: 'key',
  GATEWAY_TOKEN: 'a-token-of-sixteen-chars',
};

/** A container's environment as the kubelet gives it, Secrets filled with stand-ins. */
function environment(c: Container): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of c.envFrom ?? []) {
    expect(from.secretRef, `${c.name}: a whole Secret as environment`).toBeUndefined();
    const data = configMaps.get(from.configMapRef?.name ?? '');
    expect(data, `${c.name}: ConfigMap ${from.configMapRef?.name}`).toBeDefined();
    Object.assign(env, data);
  }
  for (const v of c.env ?? []) {
    const secret = v.valueFrom?.secretKeyRef;
    const fromMap = v.valueFrom?.configMapKeyRef;
    if (secret !== undefined) env[v.name] = SECRET_VALUES[secret.key] ?? 'secret';
    else if (fromMap !== undefined) env[v.name] = configMaps.get(fromMap.name)![fromMap.key]!;
    else env[v.name] = String(v.value);
  }
  return env;
}

describe('deploy/k8s', () => {
  it('lists every manifest of the folder in its kustomization, and gives each container the image it names', () => {
    const files = readdirSync(DIR).filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml');
    expect([...kustomization.resources].sort()).toEqual(files.sort());
    for (const m of pods) {
      for (const c of containersOf(m)) {
        expect(
          kustomization.images.map((i) => i.name),
          m.metadata.name,
        ).toContain(c.image);
      }
    }
  });

  it('runs only commands dropflow has, with options it knows, never --insecure', () => {
    const program = createProgram();
    const commands = pods.flatMap((m) => containersOf(m).map((c) => c.args ?? []));
    expect(commands.map((a) => a[0]).sort()).toEqual(['gateway', 'setup', 'worker']);
    for (const [command, ...args] of commands) {
      const sub = program.commands.find((c) => c.name() === command);
      expect(sub, `dropflow ${command}`).toBeDefined();
      for (const flag of args.filter((a) => a.startsWith('--'))) {
        expect(
          sub?.options.some((o) => o.long === flag),
          `${command}: ${flag}`,
        ).toBe(true);
      }
      expect(args, String(command)).not.toContain('--insecure');
    }
  });

  it('gives every container an environment its configuration accepts', () => {
    for (const m of pods) {
      for (const c of containersOf(m)) {
        expect(() => loadConfig(environment(c)), m.metadata.name).not.toThrow();
      }
    }
  });

  it('runs 2 workers with nothing per pod: no fleet share, no hand-set heap or sizes', () => {
    const worker = running('worker');
    expect(worker?.spec?.replicas).toBe(2);
    const settings = [
      ...[...configMaps.values()].flatMap((d) => Object.entries(d)),
      ...pods.flatMap((m) => containersOf(m).flatMap((c) => Object.entries(environment(c)))),
    ];
    for (const [name, value] of settings) {
      expect(name).not.toBe('SUPPLIER_FLEET_SHARE');
      expect(name).not.toMatch(
        /^WORKER_(MAX_CACHED_WORKFLOWS|WORKFLOW_TASK_SLOTS|ACTIVITY_SLOTS)$/,
      );
      expect(`${name}=${value}`).not.toMatch(/max-old-space-size/);
    }
  });

  it('gives every container a memory limit, which the worker sizes itself from', () => {
    for (const m of pods) {
      for (const c of containersOf(m)) {
        expect(c.resources?.limits?.['memory'], `${m.metadata.name}/${c.name}`).toMatch(
          /^\d+(Mi|Gi)$/,
        );
      }
    }
  });

  it('takes the encryption key and every other secret from a Secret, never from a value', () => {
    for (const command of ['worker', 'gateway']) {
      for (const c of containersOf(running(command)!)) {
        const key = c.env?.find((v) => v.name === 'DROPFLOW_ENCRYPTION_KEY');
        expect(key?.valueFrom?.secretKeyRef?.key, command).toBe('DROPFLOW_ENCRYPTION_KEY');
      }
    }
    const SECRET = /KEY|TOKEN|SECRET|PASSWORD/;
    for (const [name, data] of configMaps) {
      for (const variable of Object.keys(data)) expect(variable, name).not.toMatch(SECRET);
    }
    for (const m of pods) {
      for (const v of containersOf(m).flatMap((c) => c.env ?? [])) {
        if (SECRET.test(v.name)) expect(v.valueFrom?.secretKeyRef, v.name).toBeDefined();
      }
    }
  });

  it("scales the worker Deployment on CPU, which the workers' requests make measurable", () => {
    const [hpa, ...more] = ofKind('HorizontalPodAutoscaler');
    expect(more).toEqual([]);
    expect(hpa?.apiVersion).toBe('autoscaling/v2');
    const worker = running('worker')!;
    expect(hpa?.spec?.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: worker.metadata.name,
    });
    expect(hpa?.spec?.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa?.spec?.metrics?.map((x) => x.resource?.name)).toEqual(['cpu']);
    for (const c of containersOf(worker)) {
      expect(c.resources?.requests?.['cpu'], c.name).toBeDefined();
    }
  });

  it('publishes nothing beyond the cluster: one ClusterIP Service, for the gateway alone', () => {
    const services = ofKind('Service');
    expect(services.map((s) => s.spec?.type)).toEqual(['ClusterIP']);
    for (const s of services) {
      expect(s.spec?.externalIPs, s.metadata.name).toBeUndefined();
      expect(s.spec?.ports?.every((p) => p.nodePort === undefined)).toBe(true);
      // It selects the gateway's pods, and no other.
      const selects = (m: Manifest) =>
        Object.entries(s.spec?.selector ?? {}).every(
          ([k, v]) => m.spec?.template?.metadata?.labels?.[k] === v,
        );
      expect(pods.filter(selects).map((m) => m.metadata.name)).toEqual([
        running('gateway')?.metadata.name,
      ]);
    }
    for (const m of pods) {
      expect(m.spec?.template?.spec.hostNetwork, m.metadata.name).not.toBe(true);
      for (const c of containersOf(m)) {
        expect(c.ports?.every((p) => p.hostPort === undefined) ?? true, c.name).toBe(true);
        // Metrics stay on the pod's loopback unless the operator opts in.
        expect(environment(c)['METRICS_HOST'] ?? '127.0.0.1', c.name).toBe('127.0.0.1');
      }
    }
  });

  it("checks the gateway's readiness through Temporal (/readyz), and has the worker ask nothing it lacks", () => {
    const [gateway] = containersOf(running('gateway')!);
    expect(gateway?.readinessProbe?.httpGet?.path).toBe('/readyz');
    expect(gateway?.livenessProbe?.httpGet?.path).toBe('/healthz');
    // The worker serves no health route: a probe would fail it forever.
    for (const c of containersOf(running('worker')!)) {
      expect(c.readinessProbe, c.name).toBeUndefined();
      expect(c.livenessProbe, c.name).toBeUndefined();
    }
  });
});
