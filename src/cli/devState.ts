/**
 * Where a running `dropflow dev` is: it writes `<data dir>/dev.json` at start (mode 0600: it holds
 * the intake token) and removes it on exit; the other commands read its Temporal address,
 * namespace and task-queue prefix from there when none is given, as they read its encryption key.
 * A file left behind by a dev that died is recognised by its process id and ignored.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { z } from 'zod';

export const DEV_STATE_FILE = 'dev.json';

const DevState = z.object({
  pid: z.number().int().positive(),
  startedAt: z.string(),
  temporal: z.object({
    address: z.string().min(1),
    namespace: z.string().min(1),
    taskQueuePrefix: z.string(),
  }),
  ports: z.object({
    temporal: z.number().int(),
    ui: z.number().int().optional(),
    sandbox: z.number().int().optional(),
    gateway: z.number().int(),
    metrics: z.number().int(),
  }),
  urls: z.object({
    temporalUi: z.string().optional(),
    gateway: z.string(),
    supplier: z.string(),
  }),
  intakeToken: z.string(),
});
export type DevState = z.infer<typeof DevState>;

/** Writes the state (replacing a previous one whole); the answer removes it again. */
export async function writeDevState(
  dataDir: string,
  state: DevState,
): Promise<() => Promise<void>> {
  const path = join(dataDir, DEV_STATE_FILE);
  const temp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  await rename(temp, path);
  return async () => {
    // Only our own: a later dev on the same directory may have replaced it.
    const text = await readFile(path, 'utf8').catch(() => undefined);
    if (text !== undefined && parse(text)?.pid === state.pid) await rm(path, { force: true });
  };
}

/**
 * The state of the dev running on `dataDir`; undefined when there is none, when the file cannot
 * be read, or when the process that wrote it is gone.
 */
export function readDevState(dataDir: string): DevState | undefined {
  let text: string;
  try {
    text = readFileSync(join(dataDir, DEV_STATE_FILE), 'utf8');
  } catch {
    return undefined;
  }
  const state = parse(text);
  return state !== undefined && alive(state.pid) ? state : undefined;
}

function parse(text: string): DevState | undefined {
  try {
    const parsed = DevState.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, it is someone else's.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
