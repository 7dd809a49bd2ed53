/**
 * A real Temporal dev server (`temporal server start-dev`) started by dropflow itself, for tests
 * and `dropflow dev` (docs/architecture.md §2.3). Never a mock.
 */
import { TypedSearchAttributes } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';

import { findTemporalCli, type CliLog } from './cli.js';
import { searchAttributeKeys } from './searchAttributes.js';

export interface DevServerOptions {
  log: CliLog;
  /** Frontend (gRPC) port; a free port when left out. */
  port?: number;
  /** UI port; defaults to `port + 1000` when `ui` is on. Ignored when `ui` is false. */
  uiPort?: number;
  /** Serve the Temporal UI (default false). */
  ui?: boolean;
  /** SQLite file to persist to; in-memory when left out. */
  dbFilename?: string;
  /** Namespace, created at start (default `default`). */
  namespace?: string;
  /** More `temporal server start-dev` arguments. */
  extraArgs?: string[];
}

export interface DevServer {
  /** `host:port` of the frontend. */
  address: string;
  namespace: string;
  /** Temporal UI address, when the UI is on. */
  uiUrl: string | undefined;
  /** The SDK's environment: `env.connection`, `env.nativeConnection`, `env.client`. */
  env: TestWorkflowEnvironment;
  /** Closes the connections and stops the server process. */
  close(): Promise<void>;
}

/**
 * One task-queue partition, so that the supplier queue's rate limits are enforced exactly rather
 * than per partition; and fairness, so that each account's tasks (their fairness key) take turns
 * and each key keeps to its rate limit (accounts/supplierBudget.ts). The priority-aware matcher is
 * server 1.32's default; it is named for a `TEMPORAL_CLI_PATH` of an older server.
 */
const MATCHING_ARGS = [
  '--dynamic-config-value',
  'matching.numTaskqueueReadPartitions=1',
  '--dynamic-config-value',
  'matching.numTaskqueueWritePartitions=1',
  '--dynamic-config-value',
  'matching.useNewMatcher=true',
  '--dynamic-config-value',
  'matching.enableFairness=true',
];

/**
 * A database file in write-ahead-log mode, synced at checkpoints rather than at every commit. The
 * dev server persists through one SQLite connection, so with SQLite's defaults every transaction
 * waits for its own fsyncs, one after the other: a 300-order backlog of `dropflow bench accounts`
 * drained at 0.49 of its bound, and at 0.87 with these. A committed transaction still outlives a
 * killed server process (chaos kills it); only a crash of the machine itself may lose the last
 * ones, which a dev server may. In memory they change nothing.
 */
const SQLITE_ARGS = [
  '--sqlite-pragma',
  'journal_mode=wal',
  '--sqlite-pragma',
  'synchronous=normal',
];

/**
 * The history service's cache of recent history events: 64 MiB rather than 512 KiB. The dev server
 * has one history shard, and the default holds the events of a few dozen orders only. A 500-order
 * `dropflow bench accounts` backlog spent 168 s of the server's time loading workflow states from
 * SQLite with it instead of 518 s without, and drained at 0.60 of its bound instead of 0.31 (one
 * run each, on a machine busy with other work).
 */
const HISTORY_ARGS = [
  '--dynamic-config-value',
  `history.eventsCacheMaxSizeBytes=${64 * 1024 * 1024}`,
];

/**
 * The `temporal server start-dev` arguments of every dev server dropflow runs: this one, and the
 * dev tools' killable one (tools/src/localStack/temporalServer.ts): dropflow's search attributes,
 * the matching, history and SQLite settings above.
 */
export function devServerArgs(): string[] {
  return [
    ...searchAttributeKeys.flatMap((key) => [
      '--search-attribute',
      `${key.name}=${TypedSearchAttributes.toMetadataType(key.type)}`,
    ]),
    ...MATCHING_ARGS,
    ...HISTORY_ARGS,
    ...SQLITE_ARGS,
  ];
}

export async function startDevServer(opts: DevServerOptions): Promise<DevServer> {
  const { log } = opts;
  const namespace = opts.namespace ?? 'default';
  const ui = opts.ui ?? false;
  const path = await findTemporalCli(log);

  const started = performance.now();
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable:
        path !== undefined ? { type: 'existing-path', path } : { type: 'cached-download' },
      namespace,
      extraArgs: [...devServerArgs(), ...(opts.extraArgs ?? [])],
      ...(opts.port !== undefined && { port: opts.port }),
      ...(opts.dbFilename !== undefined && { dbFilename: opts.dbFilename }),
      // The SDK's core starts the UI whenever a UI port is given, so only pass it with `ui`.
      ui,
      ...(ui && opts.uiPort !== undefined && { uiPort: opts.uiPort }),
    },
  });

  const address = env.address;
  let uiUrl: string | undefined;
  if (ui) {
    const [host = '127.0.0.1', port = '7233'] = address.split(':');
    uiUrl = `http://${host}:${String(opts.uiPort ?? Number(port) + 1000)}`;
  }
  log.info(
    {
      address,
      namespace,
      uiUrl,
      cli: path ?? 'cached-download',
      ms: Math.round(performance.now() - started),
    },
    'Temporal dev server started',
  );

  let closing: Promise<void> | undefined;
  return {
    address,
    namespace,
    uiUrl,
    env,
    close() {
      closing ??= env.teardown().then(() => {
        log.info({ address }, 'Temporal dev server stopped');
      });
      return closing;
    },
  };
}
