// `dropflow worker` sizes itself from the memory it is given: the container's limit (cgroup v2
// memory.max, or v1's memory.limit_in_bytes), else a share of the host's memory. Node fixes V8's
// limits when it starts, so bin/dropflow.js runs the worker in a child node sized here, unless the
// user set the heap (in NODE_OPTIONS or on node's command line).
// Plain JavaScript, read before tsx is loaded: the parent that waits for the worker stays small.
// The rest of the worker's sizing follows from the heap it got (src/temporal/workerSizing.ts).
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { constants, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MIB = 1024 * 1024;
/** Without a limit, a worker takes at most this (MiB): a host runs more than one process. */
export const UNLIMITED_BUDGET_MB = 512;
/**
 * What is not V8's: this parent (45 MiB, most of it node's code, which the worker maps again),
 * the worker's code (node's and the Temporal core's, 62 MiB), the core's and node's own
 * allocations, buffers and thread stacks (90 to 130 MiB with two malloc arenas). Measured under
 * `dropflow bench orders` (docs/operations.md).
 */
export const RESERVED_MB = 240;
/**
 * V8 isolates in the worker, each with its own heap and each allowed the whole of node's limits:
 * the main thread (activities, clients) and the thread the workflows run in (the SDK's default, one
 * thread with one reused context). The limits are per isolate, so each gets half of V8's share.
 */
export const ISOLATES = 2;
/**
 * V8's semi-space (MiB): an isolate's young generation is three of them. With node's default (16
 * on a 64-bit host) each isolate kept 32 MiB of short-lived garbage resident.
 */
export const SEMI_SPACE_MB = 8;
/** malloc's arenas: glibc makes up to 8 per core, and the core's threads and node's fill them. */
export const MALLOC_ARENAS = 2;
/**
 * What V8's limit adds to an isolate's share (MiB). The limit binds each isolate alike, but only
 * the main thread needs more than its share, and only while the worker starts: for each worker it
 * creates (the replay check's, then the worker's) the SDK keeps an evaluated copy of the workflow
 * bundle for 10 s, beside the replayed histories. Measured with --trace-gc (six open orders), the
 * main isolate then held 105 to 110 MiB after a full collection, and a 112 MiB limit ended the
 * worker. The workflow thread holds no workflow yet at that time, and its cache is sized from its
 * share (DROPFLOW_HEAP_SHARE_MB), so it stays within that share later.
 */
export const STARTUP_ALLOWANCE_MB = 64;
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

/**
 * Each isolate's share of old space in a worker given `bytes` of memory (MiB): what is left after
 * the reserve, shared by the isolates, less each one's young generation.
 */
export function heapMbFor(bytes) {
  const budget = bytes / MIB;
  const heap = Math.floor((budget - RESERVED_MB) / ISOLATES - 3 * SEMI_SPACE_MB);
  return Math.max(MIN_HEAP_MB, Math.min(MAX_HEAP_MB, heap));
}

/**
 * node's arguments for the sized worker: V8's limits, which bind each isolate alike; the old
 * space is the share and the start's allowance.
 */
export function sizedNodeArgs(heapMb, execArgv = process.execArgv) {
  const semi = /--max-semi-space-size\b/;
  return [
    ...execArgv,
    `--max-old-space-size=${heapMb + STARTUP_ALLOWANCE_MB}`,
    ...(execArgv.some((a) => semi.test(a)) ? [] : [`--max-semi-space-size=${SEMI_SPACE_MB}`]),
  ];
}

/**
 * The sized worker's environment: fewer malloc arenas, unless the user chose their number. Each
 * thread that allocates (node's, V8's, the Temporal core's) may take an arena of its own, and each
 * keeps what it freed: measured, two arenas hold 35 to 50 MiB less under load than the default.
 */
export function sizedEnv(env = process.env) {
  return env.MALLOC_ARENA_MAX === undefined ? { MALLOC_ARENA_MAX: String(MALLOC_ARENAS) } : {};
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
  const child = spawn(process.execPath, [...sizedNodeArgs(heapMb), process.argv[1], ...args], {
    env: {
      ...process.env,
      ...sizedEnv(),
      DROPFLOW_SIZED: '1',
      ...(bundle !== undefined && { DROPFLOW_WORKFLOW_BUNDLE: bundle }),
      DROPFLOW_MEMORY_GIVEN: `${Math.round(given.bytes / MIB)} MiB (${given.from})`,
      // An isolate's share, old and young, without the start's allowance: the cache's measure.
      DROPFLOW_HEAP_SHARE_MB: String(heapMb + 3 * SEMI_SPACE_MB),
    },
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
  });
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => child.kill(signal));
  }
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      if (signal !== null && signal !== 'SIGINT' && signal !== 'SIGTERM') {
        process.stderr.write(`dropflow: the worker process was ended by ${signal}\n`);
      }
      resolve(code ?? 128 + (constants.signals[signal] ?? 1));
    });
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

function readText(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
