/**
 * How dropflow bundles its workflow code. In the SDK's reusable V8 context every workflow runs its
 * own copy of each module of the bundle when it starts, and keeps it while cached. zod is the
 * largest of them: about 20 ms and 0.7 MiB per workflow, half the bundle's cost (measured with
 * the bundle's modules evaluated once per workflow, as the SDK does). Preloaded, its modules are
 * evaluated once per worker and shared, frozen: they keep nothing per use that one workflow could
 * see of another. dropflow's own schemas stay per workflow (zod fills some of their fields
 * lazily, which a frozen schema refuses).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { BundleOptions, WorkflowBundle } from '@temporalio/worker';

import { FAILURE_CONVERTER_PATH, PAYLOAD_CONVERTER_PATH } from './encryption.js';
import { tracingBundleOptions } from './tracing.js';

export const SHARED_WORKFLOW_MODULES = [
  fileURLToPath(new URL('./preloadedZod.ts', import.meta.url)),
];

/** The workflows' inbound guard: refuses unencrypted signals, updates and starts (with a key). */
export const INBOUND_GUARD = fileURLToPath(new URL('../durable/inboundGuard.ts', import.meta.url));

/** The workflow code the orders worker bundles when no prebuilt bundle is given. */
export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows.ts', import.meta.url));
/** The same workflows with their versioning behaviours: what a versioned orders worker bundles. */
export const VERSIONED_WORKFLOWS_PATH = fileURLToPath(
  new URL('../versionedWorkflows.ts', import.meta.url),
);

/** The workflow interceptor modules of every bundle: the inbound guard first, then tracing's. */
export function workflowInterceptorModules(tracing?: boolean): string[] {
  return [INBOUND_GUARD, ...(tracingBundleOptions(tracing).workflowInterceptorModules ?? [])];
}

/**
 * For `bundleWorkflowCode`, with the workflows path and the failure converter of the caller. The
 * payload converter is always bundled: without a key nothing is marked unencrypted, so it converts
 * as the SDK's default does.
 */
export function workflowBundleOptions(
  tracing?: boolean,
): Pick<BundleOptions, 'preloadModules' | 'workflowInterceptorModules' | 'payloadConverterPath'> {
  return {
    preloadModules: SHARED_WORKFLOW_MODULES,
    workflowInterceptorModules: workflowInterceptorModules(tracing),
    payloadConverterPath: PAYLOAD_CONVERTER_PATH,
  };
}

/** The child that bundles: plain JavaScript, so it needs no TypeScript loader of its own. */
const BUNDLER = fileURLToPath(new URL('../../bin/bundle-workflows.js', import.meta.url));

/** What a bundle is made of: paths only, so a child process can be told them. */
export type BundlePaths = Pick<
  BundleOptions,
  | 'workflowsPath'
  | 'preloadModules'
  | 'workflowInterceptorModules'
  | 'payloadConverterPath'
  | 'failureConverterPath'
>;

/**
 * What `dropflow worker` bundles: its workflows (versioned or not), with the failure converter
 * when its payloads are encrypted, and tracing's interceptors when tracing is on.
 */
export function workerBundlePaths(o: {
  versioned: boolean;
  encrypted: boolean;
  tracing?: boolean;
}): BundlePaths {
  return {
    workflowsPath: o.versioned ? VERSIONED_WORKFLOWS_PATH : WORKFLOWS_PATH,
    ...workflowBundleOptions(o.tracing),
    ...(o.encrypted && { failureConverterPath: FAILURE_CONVERTER_PATH }),
  };
}

/**
 * Where bin/heap.js left the bundle it made before starting the worker (src/cli/prebundle.ts),
 * with the paths it was made of in `<file>.json`.
 */
export const PREBUILT_BUNDLE_ENV = 'DROPFLOW_WORKFLOW_BUNDLE';

/**
 * The worker's bundle: the one made before the worker started when it was made of these very
 * paths (then the worker's memory never meets webpack, nor does the container's at once), else
 * bundled now in a child process.
 */
export async function workerBundle(paths: BundlePaths): Promise<WorkflowBundle> {
  const prebuilt = process.env[PREBUILT_BUNDLE_ENV];
  if (prebuilt !== undefined) {
    try {
      const madeOf = await readFile(`${prebuilt}.json`, 'utf8').catch(() => undefined);
      if (madeOf === JSON.stringify(paths)) return { code: await readFile(prebuilt, 'utf8') };
    } finally {
      await Promise.all([rm(prebuilt, { force: true }), rm(`${prebuilt}.json`, { force: true })]);
    }
  }
  return bundleInChild(paths);
}

/**
 * `bundleWorkflowCode` in a node process of its own: webpack peaks at a few hundred MiB, which the
 * worker would otherwise hold as its high-water mark (and a container counts) for its whole life.
 */
export async function bundleInChild(paths: BundlePaths): Promise<WorkflowBundle> {
  const out = join(tmpdir(), `dropflow-bundle-${randomUUID()}.js`);
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, [BUNDLER], {
        env: { ...process.env, DROPFLOW_BUNDLE: JSON.stringify({ ...paths, out }) },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      child.on('error', reject);
      child.on('exit', (code, signal) => {
        if (code === 0) resolve();
        else reject(new Error(`bundling the workflow code failed (${signal ?? `exit ${code}`})`));
      });
    });
    return { code: await readFile(out, 'utf8') };
  } finally {
    await rm(out, { force: true });
  }
}
