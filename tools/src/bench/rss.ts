/** A child process's peak resident memory, from Linux's /proc (undefined elsewhere). */
import { readFile } from 'node:fs/promises';

const KIB_PER_MB = 1_024;

/** VmHWM of `pid` in MB: the most the process ever had resident. */
export async function peakRssMb(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kib = /^VmHWM:\s+(\d+)\s+kB$/m.exec(status)?.[1];
    return kib === undefined ? undefined : Number(kib) / KIB_PER_MB;
  } catch {
    return undefined;
  }
}
