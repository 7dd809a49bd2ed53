/**
 * `dropflow dev` as a child process of a test: started on the ports given, awaited until its
 * dev.json and its banner are there, stopped with Ctrl-C (SIGINT) as a user stops it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

import { readDevState, type DevState } from '../../src/cli/devState.js';
import { eventually } from './eventually.js';

/** The environment of a command run next to the dev: no Temporal variables of the test run. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    ...Object.fromEntries(
      Object.entries(process.env).filter(
        ([name]) => !name.startsWith('TEMPORAL_') || name === 'TEMPORAL_CLI_PATH',
      ),
    ),
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

export interface RunningDev {
  child: ChildProcess;
  state: DevState;
  /** What it printed so far. */
  stdout(): string;
  /** SIGINT, then its exit (nothing when it has exited already). */
  stop(): Promise<void>;
}

/** `dropflow dev --data-dir <dir> <args>`, once its banner is printed. */
export async function startDev(
  dir: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<RunningDev> {
  const child = spawn(process.execPath, ['bin/dropflow.js', 'dev', '--data-dir', dir, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: cleanEnv(env),
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const state = await eventually(
    'dev.json of the running dev',
    () => Promise.resolve(readDevState(dir)),
    (s) => s !== undefined || exited(),
    180_000,
  );
  if (state === undefined) throw new Error(`dropflow dev exited (${String(child.exitCode)})`);
  await eventually(
    'the banner',
    () => Promise.resolve(out),
    (s) => s.includes('Ctrl-C stops everything'),
  );
  return {
    child,
    state,
    stdout: () => out,
    stop: async () => {
      if (exited()) return;
      child.kill('SIGINT');
      await once(child, 'exit');
    },
  };
}
