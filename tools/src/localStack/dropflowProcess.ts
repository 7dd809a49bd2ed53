/**
 * A `dropflow <command>` child process started from the current tree (bin/dropflow.js runs the
 * TypeScript sources through tsx), so a worker started again picks up workflow code as it is now.
 * Ready once its first line of stdout matches; killed with SIGKILL mid-flow and started again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { killAndWait } from './temporalServer.js';

export const DROPFLOW_BIN = fileURLToPath(new URL('../../../bin/dropflow.js', import.meta.url));

/** Bundling the workflows at a worker's start takes a while on a busy machine. */
const READY_TIMEOUT_MS = 180_000;
/** How much of its last stderr a failed start quotes, so that CI's output shows why. */
const STDERR_TAIL_CHARS = 2_000;

export interface DropflowProcessOptions {
  /** For messages: `worker`, `gateway`. */
  name: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Its stdout and stderr are appended here. */
  logFile: string;
  /** A line of stdout that says it is ready. */
  ready: RegExp;
}

export class DropflowProcess {
  private child: ChildProcess | undefined;
  private readonly log: WriteStream;
  private expectedExit = false;
  /** Exits nobody asked for (a crash of the process). */
  unexpectedExits = 0;
  /** Called when the process exits without being asked to. */
  onUnexpectedExit: ((code: number | null, signal: NodeJS.Signals | null) => void) | undefined;

  constructor(private readonly opts: DropflowProcessOptions) {
    this.log = createWriteStream(opts.logFile, { flags: 'a' });
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  /** The running process's id, if it runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    if (this.child !== undefined) throw new Error(`${this.opts.name} is already running`);
    this.expectedExit = false;
    const child = spawn(process.execPath, [DROPFLOW_BIN, ...this.opts.args], {
      env: this.opts.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stderr.pipe(this.log, { end: false });
    child.once('exit', (code, signal) => {
      if (this.child === child) this.child = undefined;
      if (!this.expectedExit) {
        this.unexpectedExits += 1;
        this.onUnexpectedExit?.(code, signal);
      }
    });
    await new Promise<void>((resolve, reject) => {
      let seen = '';
      let stderrTail = '';
      const why = (what: string): Error =>
        new Error(
          `${this.opts.name} ${what}; see ${this.opts.logFile}, which ends:\n${stderrTail}`,
        );
      const timer = setTimeout(() => {
        fail(why(`not ready after ${READY_TIMEOUT_MS} ms`));
      }, READY_TIMEOUT_MS);
      const onData = (chunk: Buffer): void => {
        this.log.write(chunk);
        seen += chunk.toString('utf8');
        if (this.opts.ready.test(seen)) done();
      };
      const onStderr = (chunk: Buffer): void => {
        stderrTail = (stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
        fail(why(`exited (${signal ?? code}) before it was ready`));
      };
      const cleanup = (): void => {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        child.stderr.off('data', onStderr);
        child.off('close', onExit);
        // Keep logging what it prints later.
        child.stdout.pipe(this.log, { end: false });
      };
      const done = (): void => {
        cleanup();
        resolve();
      };
      const fail = (err: Error): void => {
        cleanup();
        reject(err);
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onStderr);
      // 'close', not 'exit': by then its last stderr has been read.
      child.once('close', onExit);
    });
  }

  /** SIGKILL: no drain, in-flight tasks are lost until their timeouts. */
  async kill9(): Promise<void> {
    const child = this.child;
    if (child === undefined) return;
    this.expectedExit = true;
    await killAndWait(child, 'SIGKILL');
  }

  /** SIGTERM (a graceful drain), SIGKILL after a grace period. */
  async stop(): Promise<void> {
    const child = this.child;
    this.expectedExit = true;
    if (child !== undefined) await killAndWait(child, 'SIGTERM', 15_000);
  }

  async close(): Promise<void> {
    await this.stop();
    await new Promise<void>((resolve) => this.log.end(resolve));
  }
}
