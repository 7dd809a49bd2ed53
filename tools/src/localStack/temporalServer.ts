/**
 * The dev tools' own Temporal dev server (chaos, bench), as a child process rather than through
 * @temporalio/testing (src/temporal/devServer.ts, whose arguments it shares), so that it can be
 * killed with SIGKILL and started again on the same port and database file: a crash of the
 * cluster with its state kept.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';

import { join } from 'node:path';

import { Connection } from '@temporalio/client';

import type { Logger } from 'dropflow/log';
import { findTemporalCli, devServerArgs } from 'dropflow/temporal';
import { freePort } from './ports.js';
import { waitFor } from './wait.js';

const START_TIMEOUT_MS = 60_000;

export interface TemporalServerOptions {
  cliPath: string;
  port: number;
  dbFilename: string;
  namespace: string;
  /** The server's output is appended here. */
  logFile: string;
  /** More `temporal server start-dev` arguments, such as chaos's lowered limits. */
  extraArgs?: readonly string[];
}

export function startDevArgs(opts: Omit<TemporalServerOptions, 'cliPath' | 'logFile'>): string[] {
  return [
    'server',
    'start-dev',
    '--headless',
    '--ip',
    '127.0.0.1',
    '--port',
    String(opts.port),
    '--db-filename',
    opts.dbFilename,
    '--namespace',
    opts.namespace,
    ...devServerArgs(),
    ...(opts.extraArgs ?? []),
  ];
}

export class TemporalServer {
  private child: ChildProcess | undefined;
  private readonly log: WriteStream;

  constructor(private readonly opts: TemporalServerOptions) {
    this.log = createWriteStream(opts.logFile, { flags: 'a' });
  }

  get address(): string {
    return `127.0.0.1:${this.opts.port}`;
  }

  /** Starts the server and waits until its namespace answers. */
  async start(): Promise<void> {
    if (this.child !== undefined) throw new Error('the Temporal dev server is already running');
    const child = spawn(this.opts.cliPath, startDevArgs(this.opts), {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdout.pipe(this.log, { end: false });
    child.stderr.pipe(this.log, { end: false });
    child.once('exit', () => {
      if (this.child === child) this.child = undefined;
    });
    await waitFor(
      `the Temporal dev server on ${this.address}`,
      async () => {
        if (child.exitCode !== null) {
          throw new Error(`the Temporal dev server exited with ${child.exitCode}`);
        }
        const connection = await Connection.connect({
          address: this.address,
          connectTimeout: 1_000,
        });
        try {
          await connection.workflowService.describeNamespace({ namespace: this.opts.namespace });
          return true;
        } finally {
          await connection.close();
        }
      },
      { timeoutMs: START_TIMEOUT_MS, everyMs: 300 },
    );
  }

  /** SIGKILL: no shutdown, whatever was in flight is lost; the database file stays. */
  async kill9(): Promise<void> {
    const child = this.child;
    if (child === undefined) return;
    await killAndWait(child, 'SIGKILL');
  }

  /** Killed with SIGKILL, then started again on the same port and database file. */
  async restart(): Promise<void> {
    await this.kill9();
    await this.start();
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child !== undefined) await killAndWait(child, 'SIGTERM', 10_000);
    await new Promise<void>((resolve) => this.log.end(resolve));
  }
}

/** Sends `signal` and waits for the exit; SIGKILL after `graceMs`. */
export async function killAndWait(
  child: ChildProcess,
  signal: NodeJS.Signals,
  graceMs = 10_000,
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      resolve();
    });
  });
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  try {
    await exited;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A dev server of its own for a run (chaos suite, bench) on a free port, with its database and
 * log in `workDir`; started, and stopped by the caller.
 */
export async function startRunServer(o: {
  workDir: string;
  namespace: string;
  log: Logger;
  /** Who needs it, for the error when no Temporal CLI is found. */
  who: string;
  extraArgs?: readonly string[];
}): Promise<TemporalServer> {
  const cliPath = await findTemporalCli(o.log);
  if (cliPath === undefined) {
    throw new Error(`${o.who} runs its own Temporal CLI: set TEMPORAL_CLI_PATH`);
  }
  const server = new TemporalServer({
    cliPath,
    port: await freePort(),
    dbFilename: join(o.workDir, 'temporal.db'),
    namespace: o.namespace,
    logFile: join(o.workDir, 'temporal.log'),
    ...(o.extraArgs !== undefined && { extraArgs: o.extraArgs }),
  });
  return server;
}
