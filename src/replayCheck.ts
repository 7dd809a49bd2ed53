/**
 * The deploy gate of workflow changes: before a worker takes tasks, the histories of workflows
 * still open on its queue replay through the code it is about to run. A non-determinism error
 * means the new code would take a running order down another path than the one it recorded, so
 * the worker refuses to start (docs/changing-workflows.md).
 *
 * Replayed: the newest `limit` open workflows, the account's singletons (the checkout
 * coordinator, supplier session, tracking sweeper, webhook inbox, catalogue events), which started
 * long before the newest orders, and the oldest open run of every workflow type, the one most
 * likely to have recorded a path the code no longer takes.
 *
 * A versioned worker (WORKER_DEPLOYMENT_NAME) replays only the runs its version may take over: the
 * unpinned ones and those pinned to its own build id; runs pinned to another build never reach it.
 */
import {
  isGrpcServiceError,
  ServiceError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowExecutionInfo,
} from '@temporalio/client';
import type { DataConverter, WorkerDeploymentVersion } from '@temporalio/common';
import { Worker, type ReplayWorkerOptions, type WorkflowBundle } from '@temporalio/worker';

import { ORDER_WORKFLOW } from './order/contract.js';
import { DISPUTE_WORKFLOW } from './dispute/contract.js';
import { SUPPLIER_SESSION_WORKFLOW, supplierSessionId } from './session/contract.js';
import {
  CATALOGUE_EVENTS_WORKFLOW,
  catalogueEventsId,
  WEBHOOK_INBOX_WORKFLOW,
  webhookInboxId,
} from './inbox/contract.js';
import { CHECKOUT_WORKFLOW, checkoutWorkflowId } from './checkout/contract.js';
import { STORE_ORDER_SWEEP_WORKFLOW } from './store/contract.js';
import {
  TRACKING_SWEEP_WORKFLOW,
  TRACKING_SWEEPER_WORKFLOW,
  trackingSweeperId,
} from './tracking/contract.js';
import { queuePrefix, queuesOf } from './temporal/taskQueues.js';
import { literal } from './temporal/visibility.js';
import { isTakenOverBy, takenOverBy, versionOf } from './temporal/deployment.js';
import { tracingReplayOptions } from './temporal/tracing.js';

/** Every workflow type the orders worker runs (src/workflows.ts). */
export const WORKFLOW_TYPES: readonly string[] = [
  ORDER_WORKFLOW,
  TRACKING_SWEEP_WORKFLOW,
  TRACKING_SWEEPER_WORKFLOW,
  WEBHOOK_INBOX_WORKFLOW,
  CATALOGUE_EVENTS_WORKFLOW,
  DISPUTE_WORKFLOW,
  CHECKOUT_WORKFLOW,
  SUPPLIER_SESSION_WORKFLOW,
  STORE_ORDER_SWEEP_WORKFLOW,
];

/** Open runs per visibility page when the server cannot sort (SQL visibility, the dev server). */
const SCAN_PAGE_SIZE = 1_000;

/** gRPC status INVALID_ARGUMENT: what a visibility store that cannot ORDER BY answers. */
const INVALID_ARGUMENT = 3;
/** gRPC status NOT_FOUND: describing a workflow id that never ran. */
const NOT_FOUND = 5;

export interface ReplayCheck {
  /** Workflows whose histories were replayed. */
  checked: number;
  /** How many of them last ran on each version (`<deployment>:<buildId>`, or `unversioned`). */
  versions: Record<string, number>;
  /** Those the code cannot replay, with the error. */
  failures: { workflowId: string; type: string; error: string }[];
}

export interface OpenRun {
  workflowId: string;
  runId: string;
  type: string;
  /** The version it last ran on (`<deployment>:<buildId>`), or `unversioned`. */
  version: string;
}

export async function replayOpenWorkflows(
  client: Client,
  opts: {
    taskQueue: string;
    workflowBundle: WorkflowBundle;
    /** This many of the newest open workflows, besides the singletons and each type's oldest. */
    limit: number;
    dataConverter?: DataConverter;
    /** The version the worker polls as; only the runs it may take over are replayed. */
    deployment?: WorkerDeploymentVersion;
  },
): Promise<ReplayCheck> {
  const open = await openWorkflowsToReplay(client, opts);
  const types = new Map(open.map((w) => [w.workflowId, w.type]));
  const histories = (async function* () {
    for (const w of open) {
      const history = await client.workflow.getHandle(w.workflowId, w.runId).fetchHistory();
      yield { workflowId: w.workflowId, history };
    }
  })();
  const failures: ReplayCheck['failures'] = [];
  const results = Worker.runReplayHistories(
    inWorkflowThread({
      workflowBundle: opts.workflowBundle,
      replayName: `replay-check-${opts.taskQueue}`,
      // A bundle with the tracing interceptors (built when tracing is on) needs their sink.
      ...tracingReplayOptions(),
      ...(opts.dataConverter !== undefined && { dataConverter: opts.dataConverter }),
    }),
    histories,
  );
  for await (const r of results) {
    if (r.error !== undefined) {
      failures.push({
        workflowId: r.workflowId,
        type: types.get(r.workflowId) ?? 'unknown',
        error: r.error instanceof Error ? r.error.message : String(r.error),
      });
    }
  }
  const versions: Record<string, number> = {};
  for (const w of open) versions[w.version] = (versions[w.version] ?? 0) + 1;
  return { checked: open.length, versions, failures };
}

/**
 * The replay runs its workflows in a thread of their own, as the worker does, not in the process's
 * main thread. There the SDK's in-thread sandbox (its default for replays, meant for debuggers)
 * installs a promise hook for workflow stack traces and never removes it: for good, every promise
 * of the worker process then compiles a function. In a fleet that showed as pauses of 30 to 90 ms
 * (garbage collection) in which supplier calls missed their slots. `debugMode` is left out of the
 * replay options' type, but the SDK honours it.
 */
function inWorkflowThread(options: ReplayWorkerOptions): ReplayWorkerOptions {
  return { ...options, debugMode: false } as ReplayWorkerOptions;
}

/**
 * The open runs the gate replays, each once: the newest `limit`, then the account's singletons,
 * then the oldest open run of each type.
 */
export async function openWorkflowsToReplay(
  client: Client,
  opts: { taskQueue: string; limit: number; deployment?: WorkerDeploymentVersion },
): Promise<OpenRun[]> {
  const open = new Map<string, OpenRun>();
  const add = (run: OpenRun | undefined): void => {
    if (run !== undefined && !open.has(run.runId)) open.set(run.runId, run);
  };
  const { deployment } = opts;
  const onQueue =
    `ExecutionStatus = 'Running' AND TaskQueue = ${literal(opts.taskQueue)}` +
    (deployment === undefined ? '' : ` AND ${takenOverBy(deployment)}`);
  for (const run of await newestOpen(client, onQueue, opts.limit)) add(run);
  for (const workflowId of singletonIds(opts.taskQueue)) {
    add(await runningOn(client, workflowId, opts.taskQueue, deployment));
  }
  const sorting = { supported: true };
  for (const type of WORKFLOW_TYPES) {
    add(await oldestOpen(client, `${onQueue} AND WorkflowType = ${literal(type)}`, sorting));
  }
  return [...open.values()];
}

/** The ids of the account's one-per-account workflows on the orders queue `taskQueue`. */
export function singletonIds(taskQueue: string): string[] {
  const prefix = queuePrefix(queuesOf(taskQueue));
  return [
    checkoutWorkflowId(prefix),
    supplierSessionId(prefix),
    trackingSweeperId(prefix),
    webhookInboxId(prefix),
    catalogueEventsId(prefix),
  ];
}

async function newestOpen(client: Client, query: string, limit: number): Promise<OpenRun[]> {
  const runs: OpenRun[] = [];
  if (limit <= 0) return runs;
  for await (const w of client.workflow.list({
    query,
    pageSize: Math.min(limit, SCAN_PAGE_SIZE),
  })) {
    runs.push(openRun(w));
    if (runs.length >= limit) break;
  }
  return runs;
}

/**
 * The current run of `workflowId` when it is open on `taskQueue` and `deployment` may take it over
 * (describe: no visibility lag).
 */
async function runningOn(
  client: Client,
  workflowId: string,
  taskQueue: string,
  deployment: WorkerDeploymentVersion | undefined,
): Promise<OpenRun | undefined> {
  try {
    const d = await client.workflow.getHandle(workflowId).describe();
    if (d.status.name !== 'RUNNING' || d.taskQueue !== taskQueue) return undefined;
    if (deployment !== undefined && !isTakenOverBy(deployment, d.typedSearchAttributes)) {
      return undefined;
    }
    return openRun(d);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/**
 * The open run of `query` that started first. Elasticsearch visibility sorts; SQL visibility (the
 * dev server's, and MySQL/PostgreSQL) refuses ORDER BY, so every open run of the type is listed.
 */
async function oldestOpen(
  client: Client,
  query: string,
  sorting: { supported: boolean },
): Promise<OpenRun | undefined> {
  if (sorting.supported) {
    try {
      for await (const w of client.workflow.list({
        query: `${query} ORDER BY StartTime ASC`,
        pageSize: 1,
      })) {
        return openRun(w);
      }
      return undefined;
    } catch (err) {
      if (!isInvalidArgument(err)) throw err;
      sorting.supported = false;
    }
  }
  let oldest: WorkflowExecutionInfo | undefined;
  for await (const w of client.workflow.list({ query, pageSize: SCAN_PAGE_SIZE })) {
    if (oldest === undefined || w.startTime < oldest.startTime) oldest = w;
  }
  return oldest && openRun(oldest);
}

function openRun(
  w: Pick<WorkflowExecutionInfo, 'workflowId' | 'runId' | 'type' | 'typedSearchAttributes'>,
): OpenRun {
  return {
    workflowId: w.workflowId,
    runId: w.runId,
    type: w.type,
    version: versionOf(w.typedSearchAttributes),
  };
}

function grpcCode(err: unknown): number | undefined {
  const grpc = err instanceof ServiceError ? err.cause : err;
  return isGrpcServiceError(grpc) ? grpc.code : undefined;
}

function isInvalidArgument(err: unknown): boolean {
  return grpcCode(err) === INVALID_ARGUMENT;
}

function isNotFound(err: unknown): boolean {
  return err instanceof WorkflowNotFoundError || grpcCode(err) === NOT_FOUND;
}
