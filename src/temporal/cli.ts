/**
 * Finding (and, with Go, building once) the Temporal CLI that runs the dev server
 * (docs/architecture.md §2.3).
 *
 * Order: `TEMPORAL_CLI_PATH`; `temporal` on PATH; `$(go env GOBIN)` or `$(go env GOPATH)/bin`;
 * `go install` of the pinned version when `go` is on PATH; otherwise `undefined`, which means
 * "let @temporalio/testing download it" (`executable: { type: 'cached-download' }`).
 */
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';

import type { Logger } from '../log.js';

const execFileAsync = promisify(execFile);

/**
 * Pinned on purpose: Temporal CLI releases from v1.6.0 carry a `replace` directive in their
 * go.mod, and `go install module@version` refuses modules with `replace` directives. v1.5.1 is
 * the newest release that `go install` can build.
 */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';
export const TEMPORAL_CLI_MODULE = `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`;

/** Building the CLI from source downloads ~200 modules and compiles them: allow plenty of time. */
const GO_INSTALL_TIMEOUT_MS = 30 * 60_000;

const exeSuffix = process.platform === 'win32' ? '.exe' : '';

export type CliLog = Pick<Logger, 'debug' | 'info' | 'warn'>;

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** The first `name` on PATH, like `which`, without a shell. */
async function findOnPath(name: string): Promise<string | undefined> {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name + exeSuffix);
    if (await isFile(candidate)) return candidate;
  }
  return undefined;
}

/** Where `go install` puts binaries: GOBIN if set, otherwise the first GOPATH entry's `bin`. */
async function goBinDir(go: string, log: CliLog): Promise<string | undefined> {
  try {
    const { stdout } = await execFileAsync(go, ['env', 'GOBIN', 'GOPATH'], { timeout: 60_000 });
    const [gobin = '', gopath = ''] = stdout.split(/\r?\n/).map((line) => line.trim());
    if (gobin !== '') return gobin;
    const first = gopath.split(delimiter).find((entry) => entry !== '');
    return first === undefined ? undefined : join(first, 'bin');
  } catch (err) {
    log.warn({ err }, '`go env` failed; not using Go to provide the Temporal CLI');
    return undefined;
  }
}

async function goInstall(go: string, binDir: string, log: CliLog): Promise<string | undefined> {
  process.stderr.write(
    `dropflow: building the Temporal CLI ${TEMPORAL_CLI_VERSION} once with \`go install ${TEMPORAL_CLI_MODULE}\`.\n` +
      `dropflow: this takes a few minutes; later runs reuse ${join(binDir, 'temporal' + exeSuffix)}.\n`,
  );
  const started = performance.now();
  const run = execFileAsync(go, ['install', TEMPORAL_CLI_MODULE], {
    timeout: GO_INSTALL_TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
  });
  // Show Go's progress ("go: downloading …") as it happens.
  run.child.stderr?.pipe(process.stderr, { end: false });
  try {
    await run;
  } catch (err) {
    log.warn(
      { err },
      'go install of the Temporal CLI failed; falling back to the download by @temporalio/testing',
    );
    return undefined;
  }
  const path = join(binDir, 'temporal' + exeSuffix);
  if (!(await isFile(path))) {
    log.warn({ path }, 'go install succeeded but the Temporal CLI is not where expected');
    return undefined;
  }
  const seconds = Math.round((performance.now() - started) / 1000);
  process.stderr.write(`dropflow: built the Temporal CLI in ${seconds}s: ${path}\n`);
  return path;
}

async function resolve(log: CliLog): Promise<string | undefined> {
  const fromEnv = process.env['TEMPORAL_CLI_PATH'];
  if (fromEnv !== undefined && fromEnv !== '') {
    if (!(await isFile(fromEnv))) {
      throw new Error(`TEMPORAL_CLI_PATH=${fromEnv} is not a file`);
    }
    log.debug({ path: fromEnv }, 'Temporal CLI from TEMPORAL_CLI_PATH');
    return fromEnv;
  }

  const onPath = await findOnPath('temporal');
  if (onPath !== undefined) {
    log.debug({ path: onPath }, 'Temporal CLI from PATH');
    return onPath;
  }

  const go = await findOnPath('go');
  if (go === undefined) {
    log.debug('no Temporal CLI and no Go: @temporalio/testing will download the CLI');
    return undefined;
  }
  const binDir = await goBinDir(go, log);
  if (binDir === undefined) return undefined;

  const installed = join(binDir, 'temporal' + exeSuffix);
  if (await isFile(installed)) {
    log.debug({ path: installed }, 'Temporal CLI from the Go bin directory');
    return installed;
  }
  return goInstall(go, binDir, log);
}

let pending: Promise<string | undefined> | undefined;

/**
 * Path to a Temporal CLI executable, building it with Go once if needed; `undefined` means "no
 * local CLI: use `{ type: 'cached-download' }`". Concurrent callers in one process share one
 * look-up (and so never start two builds).
 */
export function findTemporalCli(log: CliLog): Promise<string | undefined> {
  pending ??= resolve(log).finally(() => {
    pending = undefined;
  });
  return pending;
}
