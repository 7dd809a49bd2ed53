/** `dropflow bench <kind> …` as a person runs it, in a child process: its exit code and output. */
import { spawn } from 'node:child_process';

export interface BenchRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runBench(kind: string, args: readonly string[]): Promise<BenchRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/dropflow.js', 'bench', kind, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LOG_LEVEL: 'warn' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

/** The last line of stdout, the `--json` line, parsed. */
export function lastJson(run: BenchRun): unknown {
  return JSON.parse(run.stdout.trimEnd().split('\n').at(-1)!);
}
