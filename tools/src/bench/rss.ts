/**
 * A child process's peak resident memory, from Linux's /proc (undefined elsewhere). `dropflow
 * worker` runs as a small parent node and the sized worker it starts (bin/heap.js): what the
 * worker costs is the two together, as a container's limit counts them.
 */
import { readFile } from 'node:fs/promises';

const KIB_PER_MB = 1_024;

/** VmHWM of `pid` and of its descendants, in MB: the most each ever had resident, summed. */
export async function peakRssMb(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  const own = await peakOf(pid);
  if (own === undefined) return undefined;
  let total = own;
  for (const child of await childrenOf(pid)) total += (await peakRssMb(child)) ?? 0;
  return total;
}

async function peakOf(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kib = /^VmHWM:\s+(\d+)\s+kB$/m.exec(status)?.[1];
    return kib === undefined ? undefined : Number(kib) / KIB_PER_MB;
  } catch {
    return undefined;
  }
}

async function childrenOf(pid: number): Promise<number[]> {
  try {
    const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8');
    return text.split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}
