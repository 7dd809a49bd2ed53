/**
 * `dropflow worker` sizes itself from the memory it is given (bin/heap.js: the heap;
 * src/temporal/workerSizing.ts: the cache and the slots from the heap). That the sized child runs
 * with that heap is workerSizing.slow.test.ts: it starts the child, which bundles the workflows.
 */
import { describe, expect, it } from 'vitest';

import {
  heapMbFor,
  heapSetByUser,
  ISOLATES,
  memoryGiven,
  RESERVED_MB,
  SEMI_SPACE_MB,
  sizedEnv,
  sizedNodeArgs,
  STARTUP_ALLOWANCE_MB,
} from '../../bin/heap.js';
import { sizedWorkerOptions, workerSizing } from '../../src/temporal/workerSizing.js';

const MIB = 1024 * 1024;

/** A file system with these files. */
const files =
  (known: Record<string, string>) =>
  (path: string): string | undefined =>
    known[path];

describe('the memory a worker is given', () => {
  it('is the cgroup v2 limit, else the v1 limit, else a share of the host capped at 512 MiB', () => {
    expect(memoryGiven(files({ '/sys/fs/cgroup/memory.max': '1073741824\n' }), 64e9)).toEqual({
      bytes: 1024 * MIB,
      from: 'cgroup v2',
    });
    // v2 without a limit says "max"; v1's "no limit" is a number near 2^63.
    const v1 = {
      '/sys/fs/cgroup/memory.max': 'max\n',
      '/sys/fs/cgroup/memory/memory.limit_in_bytes': '805306368\n',
    };
    expect(memoryGiven(files(v1), 64e9)).toEqual({ bytes: 768 * MIB, from: 'cgroup v1' });
    const none = { '/sys/fs/cgroup/memory/memory.limit_in_bytes': '9223372036854771712\n' };
    expect(memoryGiven(files(none), 64e9)).toEqual({ bytes: 512 * MIB, from: 'host' });
    expect(memoryGiven(files({}), 1024 * MIB)).toEqual({ bytes: 256 * MIB, from: 'host' });
  });
});

describe('the sizes that follow', () => {
  it('give each V8 isolate its half of what is left after the native part, within bounds', () => {
    expect(heapMbFor(512 * MIB)).toBe(112);
    expect(heapMbFor(2048 * MIB)).toBe(880);
    expect(heapMbFor(256 * MIB)).toBe(96);
    expect(heapMbFor(64 * 1024 * MIB)).toBe(4096);
  });

  it('fit the isolates, their young generations and the native part in the memory given', () => {
    for (const mb of [480, 512, 768, 1024, 2048, 8192]) {
      const isolate = heapMbFor(mb * MIB) + 3 * SEMI_SPACE_MB;
      expect(RESERVED_MB + ISOLATES * isolate).toBeLessThanOrEqual(mb);
      expect(RESERVED_MB + ISOLATES * isolate).toBeGreaterThan(mb - ISOLATES);
    }
  });

  it('let the main thread pass its share while the worker starts, and size the cache from the share', () => {
    expect(sizedNodeArgs(112, [])).toEqual([
      `--max-old-space-size=${112 + STARTUP_ALLOWANCE_MB}`,
      `--max-semi-space-size=${SEMI_SPACE_MB}`,
    ]);
    process.env.DROPFLOW_HEAP_SHARE_MB = '136';
    try {
      expect(workerSizing().maxCachedWorkflows).toBe(114);
    } finally {
      delete process.env.DROPFLOW_HEAP_SHARE_MB;
    }
  });

  it('cap malloc arenas unless the user chose them', () => {
    expect(sizedEnv({})).toEqual({ MALLOC_ARENA_MAX: '2' });
    expect(sizedEnv({ MALLOC_ARENA_MAX: '8' })).toEqual({});
  });

  it('size the cache from the workflow thread heap, and take no more tasks than the cache and the thread can use', () => {
    // 512 MiB: each isolate's limit is 112 MiB of old space and 24 of young.
    expect(workerSizing(136 * MIB)).toEqual({
      heapMb: 136,
      maxCachedWorkflows: 114,
      workflowTaskSlots: 10,
      activitySlots: 68,
    });
    expect(workerSizing(96 * MIB)).toMatchObject({ maxCachedWorkflows: 61, workflowTaskSlots: 6 });
    expect(workerSizing(4096 * MIB)).toMatchObject({
      maxCachedWorkflows: 2000,
      activitySlots: 100,
    });
  });

  it('a setting in the environment wins over the sized one', () => {
    const sized = workerSizing(136 * MIB);
    expect(
      sizedWorkerOptions(
        {
          WORKER_MAX_CACHED_WORKFLOWS: 400,
          WORKER_WORKFLOW_TASK_SLOTS: undefined,
          WORKER_ACTIVITY_SLOTS: 7,
        },
        sized,
      ),
    ).toEqual({ maxCachedWorkflows: 400, workflowTaskSlots: 10, maxConcurrentActivities: 7 });
  });

  it('a heap the user chose is left alone', () => {
    expect(heapSetByUser([], '--max-old-space-size=640')).toBe(true);
    expect(heapSetByUser(['--max-old-space-size=640'], undefined)).toBe(true);
    expect(heapSetByUser(['--enable-source-maps'], '--trace-warnings')).toBe(false);
  });
});
