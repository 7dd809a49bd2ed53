/** Runs this checkout's `dropflow` command as a user would: its exit code and what it printed. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Added to the test process's environment (LOG_LEVEL is `warn` unless given). */
  env?: NodeJS.ProcessEnv;
  /** Written to the command's stdin, which is closed after it. */
  stdin?: string;
}

export async function runDropflow(
  args: readonly string[],
  options: CliOptions = {},
): Promise<CliRun> {
  const child = spawn(process.execPath, ['bin/dropflow.js', ...args], {
    stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    env: { ...process.env, LOG_LEVEL: 'warn', ...options.env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  if (options.stdin !== undefined) child.stdin?.end(options.stdin);
  // `close`, not `exit`: what it printed is all there only once its pipes are closed.
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}
