/**
 * Reading a process's real Prometheus `/metrics` in tests: the SDK runtime installed with a metrics
 * address (once per process: call it at the top of a test file, before anything touches the
 * runtime), then scraped and parsed into samples.
 */
import { expect } from 'vitest';

import { freePort } from '../../tools/src/localStack/ports.js';
import { installRuntimeLogger } from '../../src/temporal/runtimeLogger.js';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Installs the runtime serving /metrics on a free loopback port; returns the scrape URL. */
export async function installMetricsRuntime(): Promise<string> {
  const port = await freePort();
  expect(installRuntimeLogger(undefined, { metricsAddress: `127.0.0.1:${port}` })).toBe(true);
  return `http://127.0.0.1:${port}/metrics`;
}

export async function scrape(url: string): Promise<Sample[]> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return parseExposition(await res.text());
}

/** The Prometheus text format's sample lines (comments skipped). */
export function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (m === null) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, '$1');
    }
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** Samples of `name` whose labels include `labels`. */
export function samplesOf(
  samples: readonly Sample[],
  name: string,
  labels: Record<string, string> = {},
): Sample[] {
  return samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
}

/** The sum of the matching samples' values (0 when none). */
export function valueOf(
  samples: readonly Sample[],
  name: string,
  labels: Record<string, string> = {},
): number {
  return samplesOf(samples, name, labels).reduce((sum, s) => sum + s.value, 0);
}
