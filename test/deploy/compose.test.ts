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

interface Service {
  image?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string | number>;
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
    const dynamic = readFileSync('deploy/temporal/dynamicconfig.yaml', 'utf8');
    expect(parse(dynamic)).toMatchObject({
      'matching.numTaskqueueReadPartitions': [{ value: 1 }],
      'matching.numTaskqueueWritePartitions': [{ value: 1 }],
      'matching.useNewMatcher': [{ value: true }],
      // Each account's key keeps to its rate limit on the one supplier queue (issue 17).
      'matching.enableFairness': [{ value: true, constraints: { taskQueueName: 'supplier-api' } }],
    });
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
