// `dropflow worker` sizes V8's heap from the memory it is given: the container's limit (cgroup v2
// memory.max, or v1's memory.limit_in_bytes), else a share of the host's memory. Node fixes the
// heap's limit when it starts, so bin/dropflow.js runs the worker in a child node with
// --max-old-space-size, unless the user set one (in NODE_OPTIONS or on node's command line).
// Plain JavaScript, read before tsx is loaded: the parent that waits for the worker stays small.
// The rest of the worker's sizing follows from the heap it got (src/temporal/workerSizing.ts).
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MIB = 1024 * 1024;
/** Without a limit, a worker takes at most this (MiB): a host runs more than one process. */
export const UNLIMITED_BUDGET_MB = 512;
/** What is not V8's old space: the Temporal core, code, buffers, this parent (MiB). */
export const RESERVED_MB = 200;
const MIN_HEAP_MB = 96;
const MAX_HEAP_MB = 4096;

/**
 * The memory the process is given, in bytes, and where that figure comes from. `read` reads a
 * file's text (undefined when there is none).
 */
export function memoryGiven(read = readText, total = totalmem()) {
  const v2 = read('/sys/fs/cgroup/memory.max')?.trim();
  if (v2 !== undefined && /^\d+$/.test(v2)) return { bytes: Number(v2), from: 'cgroup v2' };
  const v1 = read('/sys/fs/cgroup/memory/memory.limit_in_bytes')?.trim();
  // v1 says "no limit" with a number near 2^63.
  if (v1 !== undefined && /^\d+$/.test(v1) && Number(v1) < 2 ** 60) {
    return { bytes: Number(v1), from: 'cgroup v1' };
  }
  return { bytes: Math.min(total / 4, UNLIMITED_BUDGET_MB * MIB), from: 'host' };
}

/** V8's old space for a worker given `bytes` of memory (MiB). */
export function heapMbFor(bytes) {
  const budget = bytes / MIB;
  const heap = Math.round((budget - RESERVED_MB) * 0.8);
  return Math.max(MIN_HEAP_MB, Math.min(MAX_HEAP_MB, heap));
}

/** Whether the user chose the heap's size already. */
export function heapSetByUser(execArgv = process.execArgv, nodeOptions = process.env.NODE_OPTIONS) {
  const flag = /--max-old-space-size\b/;
  return execArgv.some((a) => flag.test(a)) || flag.test(nodeOptions ?? '');
}

/**
 * Runs `dropflow worker` in a child node with its heap sized, and resolves with its exit code;
 * undefined when this process should run the command itself (not the worker, the heap set by the
 * user, or already the sized child). The child ends when this process does (an IPC channel that
 * closes with it), so a SIGKILL of the parent is a crash of the worker too.
 */
export async function runSizedWorker(args) {
  if (args[0] !== 'worker' || process.env.DROPFLOW_SIZED === '1' || heapSetByUser()) {
    return undefined;
  }
  const given = memoryGiven();
  const heapMb = heapMbFor(given.bytes);
  const bundle = await prebundle();
  const child = spawn(
    process.execPath,
    [...process.execArgv, `--max-old-space-size=${heapMb}`, process.argv[1], ...args],
    {
      env: {
        ...process.env,
        DROPFLOW_SIZED: '1',
        ...(bundle !== undefined && { DROPFLOW_WORKFLOW_BUNDLE: bundle }),
        DROPFLOW_MEMORY_GIVEN: `${Math.round(given.bytes / MIB)} MiB (${given.from})`,
      },
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    },
  );
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => child.kill(signal));
  }
  return new Promise((resolve) => {
    child.on('exit', (code, signal) =>
      resolve(code ?? (signal === null ? 1 : 128 + signalNumber(signal))),
    );
  });
}

/**
 * Bundles the worker's workflow code before the worker starts (src/cli/prebundle.ts), so that
 * webpack's few hundred MiB are never resident beside the worker's own. Resolves with the file, or
 * undefined when that failed (the worker then bundles in a child of its own, and says why if the
 * environment is wrong).
 */
async function prebundle() {
  let loader;
  try {
    loader = import.meta.resolve('tsx');
  } catch {
    return undefined;
  }
  const out = join(tmpdir(), `dropflow-bundle-${randomUUID()}.js`);
  const script = fileURLToPath(new URL('../src/cli/prebundle.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', loader, script, out], { stdio: 'inherit' });
  const code = await new Promise((resolve) => {
    child.on('error', () => resolve(1));
    child.on('exit', (exit) => resolve(exit ?? 1));
  });
  return code === 0 ? out : undefined;
}

function signalNumber(signal) {
  return { SIGINT: 2, SIGKILL: 9, SIGTERM: 15 }[signal] ?? 1;
}

function readText(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
