/**
 * docker-compose.yml cannot be run here (no Docker engine), so it is checked for what would break
 * a deployment: unpinned images, commands dropflow does not have, an environment dropflow refuses,
 * dangling dependencies, a missing dynamic-config file, an image that lacks what the CLI needs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createProgram } from '../../src/cli/main.js';
import { Env, loadConfig } from '../../src/config/environment.js';
import { taskQueues } from '../../src/temporal/taskQueues.js';
import { interpolate, readCompose, variablesIn } from '../support/compose.js';

const services = readCompose('docker-compose.yml').services;
const dropflow = Object.entries(services).filter(([, s]) => s.build === '.');
const program = createProgram();

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

  it('lets a stopping worker drain before Docker kills it: its running tasks have 10 s', () => {
    const grace = services['dropflow-worker']?.stop_grace_period ?? '10s';
    // Docker's default is 10 s: the worker's own grace for running tasks, with nothing to spare.
    expect(Number(/^(\d+)s$/.exec(grace)?.[1])).toBeGreaterThanOrEqual(20);
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

/**
 * The variables of the images in the override files: those the Temporal UI and server images and
 * the temporal CLI document. A misspelt one would be ignored by the container, silently.
 */
const KNOWN_ENV: Record<string, readonly string[]> = {
  'temporalio/ui': [
    'TEMPORAL_ADDRESS',
    'TEMPORAL_AUTH_ENABLED',
    'TEMPORAL_AUTH_TYPE',
    'TEMPORAL_AUTH_PROVIDER_URL',
    'TEMPORAL_AUTH_ISSUER_URL',
    'TEMPORAL_AUTH_CLIENT_ID',
    'TEMPORAL_AUTH_CLIENT_SECRET',
    'TEMPORAL_AUTH_CALLBACK_URL',
    'TEMPORAL_AUTH_SCOPES',
    'TEMPORAL_CSRF_COOKIE_INSECURE',
    'TEMPORAL_TLS_CA',
    'TEMPORAL_TLS_CERT',
    'TEMPORAL_TLS_KEY',
    'TEMPORAL_TLS_SERVER_NAME',
    'TEMPORAL_TLS_ENABLE_HOST_VERIFICATION',
  ],
  'temporalio/server': [
    'TEMPORAL_TLS_REQUIRE_CLIENT_AUTH',
    'TEMPORAL_TLS_SERVER_CERT',
    'TEMPORAL_TLS_SERVER_KEY',
    'TEMPORAL_TLS_SERVER_CA_CERT',
    'TEMPORAL_TLS_FRONTEND_CERT',
    'TEMPORAL_TLS_FRONTEND_KEY',
    'TEMPORAL_TLS_CLIENT1_CA_CERT',
    'TEMPORAL_TLS_INTERNODE_SERVER_NAME',
    'TEMPORAL_TLS_FRONTEND_SERVER_NAME',
  ],
  'temporalio/admin-tools': [
    'TEMPORAL_TLS',
    'TEMPORAL_TLS_CLIENT_CERT_PATH',
    'TEMPORAL_TLS_CLIENT_KEY_PATH',
    'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
    'TEMPORAL_TLS_SERVER_NAME',
  ],
};

describe.each([
  [
    'deploy/compose/ui-oidc.yml',
    {
      TEMPORAL_AUTH_PROVIDER_URL: 'https://id.example.com',
      TEMPORAL_AUTH_CLIENT_ID: 'dropflow-ui',
      TEMPORAL_AUTH_CLIENT_SECRET: 'client-secret',
      TEMPORAL_AUTH_CALLBACK_URL: 'https://temporal.example.com/auth/sso/callback',
    },
  ],
  ['deploy/compose/temporal-mtls.yml', { TEMPORAL_TLS_DIR: '/etc/dropflow/tls' }],
])('the override %s', (file, needed) => {
  const own = readCompose(file).services;
  const merged = readCompose('docker-compose.yml', file).services;
  const given = {
    POSTGRES_PASSWORD: 'secret',
    SUPPLIER_BASE_URL: 'https://supplier.example.com',
    SUPPLIER_API_KEY: 'key',
    GATEWAY_TOKEN: 'a-token-of-sixteen-chars',
    DROPFLOW_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    ...needed,
  };

  it('overrides only services docker-compose.yml defines, with variables their images know', () => {
    for (const [name, s] of Object.entries(own)) {
      const base = services[name];
      expect(base, name).toBeDefined();
      const known =
        base?.build === '.' ? Object.keys(Env.shape) : KNOWN_ENV[base?.image?.split(':')[0] ?? ''];
      for (const variable of Object.keys(s.environment ?? {})) {
        expect(known, `${name}: ${variable}`).toContain(variable);
      }
    }
  });

  it('asks the operator for every value it needs, and has no default secret', () => {
    const referenced = new Set(
      Object.values(own).flatMap((s) => [
        ...Object.values(s.environment ?? {}).flatMap(variablesIn),
        ...(s.volumes ?? []).flatMap(variablesIn),
      ]),
    );
    expect([...referenced].filter((v) => !(v in needed))).toEqual(
      file.endsWith('ui-oidc.yml') ? ['TEMPORAL_AUTH_ISSUER_URL', 'TEMPORAL_AUTH_SCOPES'] : [],
    );
    for (const s of Object.values(own)) {
      for (const [variable, value] of Object.entries(s.environment ?? {})) {
        if (/SECRET|PASSWORD|TOKEN/.test(variable)) {
          expect(String(value), variable).toMatch(/^\$\{\w+:\?/);
        }
      }
    }
  });

  it('leaves dropflow an environment its configuration accepts', () => {
    for (const [name, s] of Object.entries(merged).filter(([, s]) => s.build === '.')) {
      const env = Object.fromEntries(
        Object.entries(s.environment ?? {}).map(([k, v]) => [k, interpolate(v, given)]),
      );
      expect(() => loadConfig(env), name).not.toThrow();
    }
  });

  it('publishes nothing more than docker-compose.yml', () => {
    for (const [name, s] of Object.entries(own)) expect(s.ports, name).toBeUndefined();
  });

  if (file.endsWith('temporal-mtls.yml')) {
    it("gives every client of Temporal a certificate and the server's name", () => {
      const tlsMount = '${TEMPORAL_TLS_DIR';
      for (const [name, s] of Object.entries(merged)) {
        const client = Object.values(s.environment ?? {}).some((v) =>
          /temporal:7233/.test(String(v)),
        );
        if (!client && name !== 'temporal') continue;
        expect(
          (s.volumes ?? []).some((v) => v.startsWith(tlsMount)),
          `${name} mounts the certificates`,
        ).toBe(true);
        const env = s.environment ?? {};
        const names = Object.values(env).map(String);
        expect(
          names.some((v) => v.endsWith('client.pem') || v.endsWith('server.pem')),
          name,
        ).toBe(true);
        if (name !== 'temporal') expect(names, name).toContain('temporal');
      }
      expect(merged['temporal']?.environment?.['TEMPORAL_TLS_REQUIRE_CLIENT_AUTH']).toBe('true');
    });
  }
});
