/**
 * Records the workflow histories the replay test guards: runs the workflow and gateway tests with
 * recording on, into test/replay/histories/<set>/ (emptied first). Usage:
 *   npm run histories:record -- <set>      e.g. npm run histories:record -- 2026-11-fulfil-v2
 * Keep the sets of every workflow version that may still have orders in flight.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { HISTORIES_DIR, RECORD_DIR_VARIABLE } from '../test/support/histories.js';

const set = process.argv[2];
if (set === undefined || !/^[\w.-]+$/.test(set)) {
  process.stderr.write('usage: npm run histories:record -- <set name: letters, digits, . _ ->\n');
  process.exit(2);
}
const dir = join(HISTORIES_DIR, set);
rmSync(dir, { recursive: true, force: true });
const run = spawnSync(
  'npx',
  ['vitest', 'run', 'test/workflows', 'test/gateway', '--exclude', 'test/replay/**'],
  { stdio: 'inherit', env: { ...process.env, [RECORD_DIR_VARIABLE]: dir } },
);
process.stdout.write(`histories recorded in ${dir}\n`);
process.exit(run.status ?? 1);
