// The types of heap.js (plain JavaScript, read by node before tsx is loaded).
export declare const UNLIMITED_BUDGET_MB: number;
export declare const RESERVED_MB: number;
export declare const ISOLATES: number;
export declare const SEMI_SPACE_MB: number;
export declare const MALLOC_ARENAS: number;
export declare const STARTUP_ALLOWANCE_MB: number;
export declare function memoryGiven(
  read?: (path: string) => string | undefined,
  total?: number,
): { bytes: number; from: 'cgroup v2' | 'cgroup v1' | 'host' };
export declare function heapMbFor(bytes: number): number;
export declare function sizedNodeArgs(heapMb: number, execArgv?: readonly string[]): string[];
export declare function sizedEnv(env?: NodeJS.ProcessEnv): { MALLOC_ARENA_MAX?: string };
export declare function heapSetByUser(execArgv?: readonly string[], nodeOptions?: string): boolean;
export declare function runSizedWorker(args: readonly string[]): Promise<number | undefined>;
