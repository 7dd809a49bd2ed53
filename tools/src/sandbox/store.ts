/** Keeps the sandbox state in one JSON file under the data directory, written atomically. */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { SandboxState } from './state.js';

const SAVE_DELAY_MS = 50;

export class StateFile {
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly path: string | undefined,
    private readonly state: () => SandboxState,
  ) {}

  static async load(path: string | undefined): Promise<SandboxState | undefined> {
    if (path === undefined) return undefined;
    try {
      return JSON.parse(await readFile(path, 'utf8')) as SandboxState;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /** Schedules a write; changes made within a few milliseconds share it. */
  changed(): void {
    if (this.path === undefined || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, SAVE_DELAY_MS);
  }

  /** Writes now (and waits for any write under way). */
  flush(): Promise<void> {
    const path = this.path;
    if (path === undefined) return Promise.resolve();
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const text = JSON.stringify(this.state());
    this.writing = this.writing.then(async () => {
      await mkdir(dirname(path), { recursive: true });
      const tmp = `${path}.tmp`;
      await writeFile(tmp, text);
      await rename(tmp, path);
    });
    return this.writing;
  }
}
