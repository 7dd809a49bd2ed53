/**
 * The worker's numbers from the heap it was given (bin/heap.js sizes the heap from the memory the
 * process is given): how many workflows it keeps in memory, how many workflow tasks and supplier
 * activities it takes at once. A setting given in the environment wins over these.
 *
 * V8's limit binds each isolate alike: the main thread's (activities, clients) and the workflow
 * thread's, whose heap is the cache's. So the cache is sized from one isolate's heap.
 */
import { getHeapStatistics } from 'node:v8';

import { checkoutSettings, type Config } from '../config/environment.js';

export interface WorkerSizing {
  /** One isolate's share of the heap (V8's limit less the start's allowance), MiB. */
  heapMb: number;
  maxCachedWorkflows: number;
  workflowTaskSlots: number;
  activitySlots: number;
}

const MIB = 1024 * 1024;
/** The workflow thread without workflows: the bundle's code, its modules, its source map. */
const WORKFLOW_THREAD_BASE_MB = 50;
/**
 * The workflow thread's heap per cached workflow: its state and the SDK's per-run objects (about a
 * third of this once collected), and room for V8 to collect in. Measured: docs/operations.md.
 */
const HEAP_MB_PER_CACHED_WORKFLOW = 0.75;

function clamp(n: number, least: number, most: number): number {
  return Math.max(least, Math.min(most, Math.floor(n)));
}

/**
 * One isolate's share of the heap, bytes: what bin/heap.js planned for it (V8's limit also holds an
 * allowance for the main thread's start), else V8's limit (a heap the user set).
 */
function isolateShareBytes(): number {
  const share = Number(process.env.DROPFLOW_HEAP_SHARE_MB);
  return share > 0 ? share * MIB : getHeapStatistics().heap_size_limit;
}

export function workerSizing(shareBytes = isolateShareBytes()): WorkerSizing {
  const heapMb = Math.round(shareBytes / MIB);
  const maxCachedWorkflows = clamp(
    (heapMb - WORKFLOW_THREAD_BASE_MB) / HEAP_MB_PER_CACHED_WORKFLOW,
    20,
    2_000,
  );
  return {
    heapMb,
    maxCachedWorkflows,
    // Workflow code runs on one thread: more tasks taken only wait there (docs/accounts.md).
    workflowTaskSlots: clamp(maxCachedWorkflows / 10, 2, 10),
    // Supplier calls mostly wait for their slot or their answer: cheap, but not free.
    activitySlots: clamp(heapMb / 2, 20, 100),
  };
}

/** What `createWorkers` takes: the environment's settings, else the sized ones. */
export function sizedWorkerOptions(
  config: Pick<
    Config,
    'WORKER_MAX_CACHED_WORKFLOWS' | 'WORKER_WORKFLOW_TASK_SLOTS' | 'WORKER_ACTIVITY_SLOTS'
  >,
  sizing: WorkerSizing = workerSizing(),
): { maxCachedWorkflows: number; workflowTaskSlots: number; maxConcurrentActivities: number } {
  return {
    maxCachedWorkflows: config.WORKER_MAX_CACHED_WORKFLOWS ?? sizing.maxCachedWorkflows,
    workflowTaskSlots: config.WORKER_WORKFLOW_TASK_SLOTS ?? sizing.workflowTaskSlots,
    maxConcurrentActivities: config.WORKER_ACTIVITY_SLOTS ?? sizing.activitySlots,
  };
}

/**
 * What every worker takes from the environment, the same for `dropflow worker` and `dropflow dev`:
 * the supplier's rates, checkout, the margin default, the token wait and the sizes.
 */
export function configuredWorkerOptions(config: Config) {
  return {
    ratePerSecond: config.SUPPLIER_RATE_PER_SECOND,
    batchRatePerSecond: config.SUPPLIER_BATCH_RATE_PER_SECOND,
    marginDefault: config.MARGIN_RULE,
    catalogueEventsUrl: config.CATALOGUE_EVENTS_URL,
    checkout: checkoutSettings(config),
    noTokenAttentionMs: config.NO_TOKEN_ATTENTION_MINUTES * 60_000,
    ...sizedWorkerOptions(config),
    ...(config.CHECKOUT_ORDER_BOUND_MS !== undefined && {
      checkoutOrderBoundMs: config.CHECKOUT_ORDER_BOUND_MS,
    }),
  };
}
