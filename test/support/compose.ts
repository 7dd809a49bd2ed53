/**
 * docker-compose files as `docker compose -f a.yml -f b.yml config` would see them, for tests that
 * cannot run Docker: YAML anchors and merge keys resolved, override files merged (maps merged, with
 * the later file winning; `ports` and `volumes` appended), and `${VAR}` interpolation with given
 * values.
 */
import { readFileSync } from 'node:fs';

import { parse } from 'yaml';

export interface Service {
  image?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string | number>;
  restart?: string;
  depends_on?: string[] | Record<string, { condition: string }>;
  volumes?: string[];
  ports?: string[];
  deploy?: Record<string, unknown>;
  stop_grace_period?: string;
}

export interface Compose {
  services: Record<string, Service>;
}

function readOne(file: string): Compose {
  return parse(readFileSync(file, 'utf8'), { merge: true }) as Compose;
}

/** The services of `files`, each later one an override of those before. */
export function readCompose(...files: string[]): Compose {
  const services: Record<string, Service> = {};
  for (const file of files) {
    for (const [name, s] of Object.entries(readOne(file).services)) {
      const base = services[name] ?? {};
      services[name] = {
        ...base,
        ...s,
        ...((base.environment ?? s.environment) && {
          environment: { ...base.environment, ...s.environment },
        }),
        ...((base.volumes ?? s.volumes) && {
          volumes: [...(base.volumes ?? []), ...(s.volumes ?? [])],
        }),
        ...((base.ports ?? s.ports) && { ports: [...(base.ports ?? []), ...(s.ports ?? [])] }),
      };
    }
  }
  return { services };
}

/** What `docker compose` does with `${VAR}`, `${VAR:?message}` and `${VAR:-default}`, given values. */
export function interpolate(value: string | number, given: Record<string, string>): string {
  return String(value).replace(
    /\$\{(\w+)(?::[?-]([^}]*))?\}/g,
    (_m, name: string, fallback?: string) => given[name] ?? fallback ?? '',
  );
}

/** The variables a value refers to, `${NAME…}`. */
export function variablesIn(value: string | number): string[] {
  return [...String(value).matchAll(/\$\{(\w+)/g)].map((m) => m[1]!);
}

/** A published port's parts: host address (`` when on every interface), host port, container port. */
export function publishedPort(spec: string): { host: string; published: string; target: string } {
  const parts = spec.split(':');
  const target = parts.pop()!;
  const published = parts.pop() ?? target;
  return { host: parts.join(':'), published, target };
}
