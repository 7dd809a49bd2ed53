/**
 * How dropflow bundles its workflow code. In the SDK's reusable V8 context every workflow runs its
 * own copy of each module of the bundle when it starts, and keeps it while cached. zod is the
 * largest of them: about 20 ms and 0.7 MiB per workflow, half the bundle's cost (measured with
 * the bundle's modules evaluated once per workflow, as the SDK does). Preloaded, its modules are
 * evaluated once per worker and shared, frozen: they keep nothing per use that one workflow could
 * see of another. dropflow's own schemas stay per workflow (zod fills some of their fields
 * lazily, which a frozen schema refuses).
 */
import { fileURLToPath } from 'node:url';

import type { BundleOptions } from '@temporalio/worker';

import { tracingBundleOptions } from './tracing.js';

export const SHARED_WORKFLOW_MODULES = [
  fileURLToPath(new URL('./preloadedZod.ts', import.meta.url)),
];

/** For `bundleWorkflowCode`, with the workflows path and converters of the caller. */
export function workflowBundleOptions(): Pick<
  BundleOptions,
  'preloadModules' | 'workflowInterceptorModules'
> {
  return { preloadModules: SHARED_WORKFLOW_MODULES, ...tracingBundleOptions() };
}
