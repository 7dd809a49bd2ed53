/**
 * Recorded workflow histories: the replay test (test/replay) runs every recorded history through
 * today's workflow code, so a change that would break orders already in flight fails `npm test`.
 * `npm run histories:record -- <set>` records them again from the workflow tests (see
 * docs/changing-workflows.md); the harness saves what its workers ran when the variable is set.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Client } from '@temporalio/client';
import {
  historyFromJSON,
  historyToJSON,
  type History,
} from '@temporalio/common/lib/proto-utils.js';
import { expect } from 'vitest';

/** The folder to record into; unset in a normal test run. */
export const RECORD_DIR_VARIABLE = 'DROPFLOW_RECORD_HISTORIES';
export const HISTORIES_DIR = join(import.meta.dirname, '..', 'replay', 'histories');

/** One recorded run: which test made it, and its history as Temporal's JSON. */
export interface RecordedHistory {
  scenario: string;
  workflowType: string;
  workflowId: string;
  status: string;
  history: unknown;
}

const scenarios = new Map<string, string>();

/** Remembers which test started a workflow, so its recording says what it shows. */
export function nameScenario(workflowId: string): void {
  const name = expect.getState().currentTestName;
  if (name !== undefined) scenarios.set(workflowId, name);
}

/**
 * Saves the history of every workflow that ran on `taskQueue` (of `types` only, when given), when
 * recording is on.
 */
export async function recordHistories(
  client: Client,
  taskQueue: string,
  types?: readonly string[],
): Promise<void> {
  const dir = process.env[RECORD_DIR_VARIABLE];
  if (dir === undefined || dir === '') return;
  await mkdir(dir, { recursive: true });
  // A file's recordings keep their names whether it is in the fast or the slow suite.
  const file = basename(expect.getState().testPath ?? 'unknown').replace(
    /(\.slow)?\.test\.ts$/,
    '',
  );
  const runs = [];
  for await (const w of client.workflow.list({ query: `TaskQueue = '${taskQueue}'` })) {
    if (types === undefined || types.includes(w.type)) runs.push(w);
  }
  runs.sort((a, b) => a.startTime.getTime() - b.startTime.getTime());
  let n = 0;
  for (const run of runs) {
    const history = await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
    const recorded: RecordedHistory = {
      scenario: scenarios.get(run.workflowId) ?? file,
      workflowType: run.type,
      workflowId: run.workflowId,
      status: run.status.name,
      history: JSON.parse(historyToJSON(history)) as unknown,
    };
    n += 1;
    const name = `${file}--${String(n).padStart(2, '0')}-${run.type}.json`;
    await writeFile(join(dir, name), `${JSON.stringify(recorded, null, 1)}\n`);
  }
}

/** Every recorded history below `dir`, by file name relative to it. */
export async function loadHistories(
  dir = HISTORIES_DIR,
): Promise<{ file: string; recorded: RecordedHistory; history: History }[]> {
  const files = (await readdir(dir, { recursive: true })).filter((f) => f.endsWith('.json')).sort();
  return Promise.all(
    files.map(async (file) => {
      const recorded = JSON.parse(await readFile(join(dir, file), 'utf8')) as RecordedHistory;
      return { file, recorded, history: historyFromJSON(recorded.history) };
    }),
  );
}
