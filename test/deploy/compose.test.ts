/**
 * docker-compose.yml cannot be run here (no Docker engine), so it is checked for what would break
 * a deployment: unpinned images, commands dropflow does not have, an environment dropflow refuses,
 * dangling dependencies, a missing dynamic-config file, an image that lacks what the CLI needs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createProgram } from '../../src/cli/main.js';
import { loadConfig } from '../../src/config.js';
import { taskQueues } from '../../src/temporal/taskQueues.js';

interface Service {
  image?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string | number>;
  restart?: string;
  depends_on?: string[] | Record<string, { condition: string }>;
  volumes?: string[];
}

const compose = parse(readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};
const services = compose.services;
const dropflow = Object.entries(services).filter(([, s]) => s.build === '.');
const program = createProgram();

/** What `docker compose` does with `${VAR:?message}` and `${VAR:-default}`, given values. */
function interpolate(value: string | number, given: Record<string, string>): string {
  return String(value).replace(
    /\$\{(\w+)(?::[?-]([^}]*))?\}/g,
    (_m, name: string, fallback?: string) => {
      return given[name] ?? fallback ?? '';
    },
  );
}

describe('docker-compose.yml', () => {
  it('pins every image it pulls', () => {
    for (const [name, s] of Object.entries(services)) {
      if (s.build !== undefined) continue;
      expect(s.image, name).toMatch(/^[\w./-]+:[\w.-]+$/);
      expect(s.image, name).not.toMatch(/:latest$/);
    }
  });

  it('runs only commands dropflow has, with options it knows', () => {
    expect(dropflow.map(([name]) => name).sort()).toEqual([
      'dropflow-gateway',
      'dropflow-setup',
      'dropflow-worker',
    ]);
    for (const [name, s] of dropflow) {
      const [command, ...args] = s.command ?? [];
      const sub = program.commands.find((c) => c.name() === command);
      expect(sub, `${name}: dropflow ${String(command)}`).toBeDefined();
      for (const flag of args.filter((a) => a.startsWith('--'))) {
        expect(
          sub?.options.some((o) => o.long === flag),
          `${name}: ${flag}`,
        ).toBe(true);
      }
    }
  });

  it("gives dropflow an environment its configuration accepts, pointing at the cluster's Temporal", () => {
    const given = {
      POSTGRES_PASSWORD: 'secret',
      SUPPLIER_BASE_URL: 'https://supplier.example.com',
      SUPPLIER_API_KEY: 'key',
      GATEWAY_TOKEN: 'a-token-of-sixteen-chars',
      DROPFLOW_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    };
    for (const [name, s] of dropflow) {
      const env = Object.fromEntries(
        Object.entries(s.environment ?? {}).map(([k, v]) => [k, interpolate(v, given)]),
      );
      expect(() => loadConfig(env), name).not.toThrow();
      expect(env['TEMPORAL_ADDRESS'], name).toBe('temporal:7233');
      if (name !== 'dropflow-setup') expect(env['DROPFLOW_ENCRYPTION_KEY'], name).toBeTruthy();
    }
    expect(services['temporal']).toBeDefined();
  });

  it('depends only on services it defines, and mounts files that exist', () => {
    for (const [name, s] of Object.entries(services)) {
      const deps = Array.isArray(s.depends_on) ? s.depends_on : Object.keys(s.depends_on ?? {});
      for (const dep of deps) expect(services[dep], `${name} → ${dep}`).toBeDefined();
      for (const volume of s.volumes ?? []) {
        const source = volume.split(':')[0]!;
        if (source.startsWith('./')) expect(existsSync(source), `${name}: ${source}`).toBe(true);
      }
    }
  });

  it("gives Temporal the dynamic config dropflow's queues need", () => {
    const temporal = services['temporal']!;
    const mounted = (temporal.volumes ?? []).find((v) =>
      v.startsWith('./deploy/temporal/dynamicconfig.yaml:'),
    );
    expect(mounted?.split(':')[1]).toBe(temporal.environment?.['DYNAMIC_CONFIG_FILE_PATH']);
    const dynamic = parse(readFileSync('deploy/temporal/dynamicconfig.yaml', 'utf8')) as Record<
      string,
      unknown
    >;
    // The queues dropflow's services poll: no TEMPORAL_TASK_QUEUE_PREFIX in compose.
    for (const [name, s] of dropflow) {
      expect(s.environment?.['TEMPORAL_TASK_QUEUE_PREFIX'], name).toBeUndefined();
    }
    const queues = taskQueues();
    expect(dynamic).toEqual({
      'matching.numTaskqueueReadPartitions': [{ value: 1 }],
      'matching.numTaskqueueWritePartitions': [{ value: 1 }],
      // Each account's key takes turns on both queues, and keeps to its rate limit on the
      // supplier queue (issue 17). The priority-aware matcher is server 1.32's default.
      'matching.enableFairness': [queues.supplier, queues.orders].map((taskQueueName) => ({
        value: true,
        constraints: { taskQueueName },
      })),
    });
  });

  it("sets up the schema before the server and the namespace before dropflow, with tools of the server's version", () => {
    const version = (name: string) => services[name]?.image?.split(':')[1];
    expect(services['temporal']?.image).toMatch(/^temporalio\/server:/);
    for (const oneShot of ['temporal-schema', 'temporal-namespace']) {
      expect(services[oneShot]?.image, oneShot).toMatch(/^temporalio\/admin-tools:/);
      expect(version(oneShot), oneShot).toBe(version('temporal'));
      // A one-shot: `restart: unless-stopped` would start it again each time it exits.
      expect(services[oneShot]?.restart, oneShot).toBeUndefined();
    }
    const dependsOn = (name: string) => services[name]?.depends_on;
    expect(dependsOn('temporal-schema')).toEqual({ postgresql: { condition: 'service_healthy' } });
    expect(dependsOn('temporal')).toEqual({
      'temporal-schema': { condition: 'service_completed_successfully' },
    });
    expect(dependsOn('temporal-namespace')).toEqual(['temporal']);
    expect(dependsOn('dropflow-setup')).toEqual({
      'temporal-namespace': { condition: 'service_completed_successfully' },
    });

    // Both databases: created where missing, brought to the server's schema where they exist.
    const schema = services['temporal-schema']?.command?.join('\n') ?? '';
    for (const step of [' create\n', ' setup-schema -v 0.0\n', ' update-schema -d ']) {
      expect(schema, step).toContain(step);
    }
    expect(schema).toContain('schema temporal temporal');
    expect(schema).toContain('schema temporal_visibility visibility');
    expect(services['temporal-schema']?.environment?.['SQL_PASSWORD']).toMatch(
      /^\$\{POSTGRES_PASSWORD:\?/,
    );

    // The namespace dropflow's services use, left as it is where it exists.
    const namespace = services['temporal-namespace']?.command?.join('\n') ?? '';
    for (const [name, s] of dropflow) {
      const ns = String(s.environment?.['TEMPORAL_NAMESPACE']);
      expect(namespace, name).toContain(`namespace describe --namespace ${ns}`);
      expect(namespace, name).toContain(`namespace create --namespace ${ns}`);
    }
  });

  it('builds an image with what the dropflow command needs', () => {
    const dockerfile = readFileSync('Dockerfile', 'utf8');
    for (const needed of ['package.json', 'package-lock.json', 'tsconfig.json', 'bin', 'src']) {
      expect(dockerfile, needed).toContain(needed);
    }
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    expect(dockerfile).toMatch(/ENTRYPOINT \["node", "bin\/dropflow\.js"\]/);
    // tsx runs the sources in the image: it must be a runtime dependency.
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(pkg.dependencies['tsx']).toBeDefined();
  });
});
