/**
 * `dropflow worker` runs in a child node with V8's limits and malloc's arenas sized from the
 * memory it is given (bin/heap.js), or with the heap the user set. The parent bundles the workflows before it starts
 * the child (src/cli/prebundle.ts): tens of seconds of CPU, hence the slow suite.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { describe, expect, it } from 'vitest';

import { heapMbFor, memoryGiven, SEMI_SPACE_MB, STARTUP_ALLOWANCE_MB } from '../../bin/heap.js';

const MIB = 1024 * 1024;
const HEAP_JS = fileURLToPath(new URL('../../bin/heap.js', import.meta.url));

describe('the sized worker process', () => {
  it('runs with the heap sized from the memory given, and with the heap the user set', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dropflow-sizing-'));
    const script = join(dir, 'probe.mjs');
    // bin/dropflow.js's first step, then what the child sees.
    await writeFile(
      script,
      [
        `import { runSizedWorker } from ${JSON.stringify(HEAP_JS)};`,
        "import { getHeapStatistics } from 'node:v8';",
        "import { Worker } from 'node:worker_threads';",
        'const code = await runSizedWorker(process.argv.slice(2));',
        'if (code !== undefined) process.exit(code);',
        // The workflow bundle made for the worker: a worker takes it and deletes it; so does this.
        "import { rm } from 'node:fs/promises';",
        'const bundle = process.env.DROPFLOW_WORKFLOW_BUNDLE;',
        'if (bundle) for (const f of [bundle, `${bundle}.json`]) await rm(f, { force: true });',
        'const given = process.env.DROPFLOW_MEMORY_GIVEN ?? null;',
        'const arenas = process.env.MALLOC_ARENA_MAX ?? null;',
        'const share = process.env.DROPFLOW_HEAP_SHARE_MB ?? null;',
        // The thread the SDK runs workflows in is a worker thread of this process.
        "const reply = \"require('worker_threads').parentPort.postMessage(require('v8').getHeapStatistics().heap_size_limit)\";",
        'const thread = await new Promise((ok) => new Worker(reply, { eval: true }).once("message", ok));',
        'console.log(JSON.stringify({ heap: getHeapStatistics().heap_size_limit, thread, given, arenas, share }));',
        'process.exit(0);',
      ].join('\n'),
    );
    const run = async (env: NodeJS.ProcessEnv) => {
      const { stdout } = await promisify(execFile)(process.execPath, [script, 'worker'], {
        env: { ...process.env, DROPFLOW_SIZED: '', NODE_OPTIONS: '', ...env },
      });
      return JSON.parse(stdout) as {
        heap: number;
        thread: number;
        given: string | null;
        arenas: string | null;
        share: string | null;
      };
    };
    try {
      const sized = await run({ MALLOC_ARENA_MAX: undefined });
      const expected = heapMbFor(memoryGiven().bytes);
      // V8's limit is the old space with the start's allowance, and the young generation: three
      // semi-spaces. The cache is sized from the share, without the allowance.
      expect(sized.heap / MIB).toBe(expected + STARTUP_ALLOWANCE_MB + 3 * SEMI_SPACE_MB);
      expect(sized.share).toBe(String(expected + 3 * SEMI_SPACE_MB));
      // The limit binds each isolate alike: the workflow thread's is the main thread's.
      expect(sized.thread).toBe(sized.heap);
      expect(sized.given).toMatch(/MiB \((cgroup v[12]|host)\)/);
      expect(sized.arenas).toBe('2');
      const chosen = await run({ NODE_OPTIONS: '--max-old-space-size=333' });
      expect(chosen.given).toBeNull();
      expect(chosen.share).toBeNull();
      expect(chosen.heap / MIB).toBeLessThan(333 + 64);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
