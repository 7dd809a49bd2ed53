/**
 * Finding (and, with Go, building once) the Temporal CLI that runs the dev server
 * (docs/architecture.md §2.3).
 *
 * Order: `TEMPORAL_CLI_PATH`; dropflow's own build in `$(go env GOBIN)` or `$(go env GOPATH)/bin`,
 * built first when `go` is on PATH; `temporal` on PATH; otherwise `undefined`, which means "let
 * @temporalio/testing download it" (`executable: { type: 'cached-download' }`).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmod,
  copyFile,
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  stat,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import type { Logger } from '../telemetry/log.js';

const execFileAsync = promisify(execFile);

/**
 * The CLI release whose dev server dropflow runs, and the server and UI it bundles. Server 1.32 is
 * the first whose matcher hands out the next task when the one at the head of a queue waits for
 * its fairness key's rate limit (docs/accounts.md); 1.29 held the whole queue behind it.
 */
export const TEMPORAL_CLI_VERSION = 'v1.9.1';
export const TEMPORAL_SERVER_VERSION = '1.32.0';
const TEMPORAL_UI_VERSION = '2.54.1';
const CLI_MODULE = 'github.com/temporalio/cli';
/** The nested module that the CLI's go.mod replaces with a directory its module zip leaves out. */
const CLIEXT_MODULE = 'github.com/temporalio/cli/cliext';
const MAIN_SOURCE = fileURLToPath(new URL('./devServerMain.go', import.meta.url));

/** Building the CLI from source downloads ~300 modules and compiles them: allow plenty of time. */
const GO_BUILD_TIMEOUT_MS = 45 * 60_000;

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

/** The build's file name: a change to devServerMain.go or to the release makes a new one. */
async function buildName(): Promise<string> {
  const digest = createHash('sha256')
    .update(await readFile(MAIN_SOURCE))
    .digest('hex')
    .slice(0, 12);
  return `dropflow-temporal-${TEMPORAL_CLI_VERSION}-${digest}${exeSuffix}`;
}

/** The module cache's files and folders are read-only; the copy must take edits. */
async function makeWritable(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    await chmod(join(entry.parentPath, entry.name), entry.isDirectory() ? 0o755 : 0o644);
  }
}

/**
 * Builds the dev server of the pinned CLI release from the Go module proxy: the release's module,
 * copied, without the cliext requirement that no proxy serves, with devServerMain.go as its
 * command (that file says why).
 */
async function goBuild(
  go: string,
  binDir: string,
  name: string,
  log: CliLog,
): Promise<string | undefined> {
  const path = join(binDir, name);
  process.stderr.write(
    `dropflow: building the Temporal dev server (CLI ${TEMPORAL_CLI_VERSION}, server ${TEMPORAL_SERVER_VERSION}) once with Go.\n` +
      `dropflow: this takes several minutes; later runs reuse ${path}.\n`,
  );
  const started = performance.now();
  // The module is built as its own main module: a go.work around the caller must not take part.
  const env = { ...process.env, GOWORK: 'off', GOFLAGS: '-mod=mod' };
  const run = async (args: string[], cwd?: string): Promise<string> => {
    const child = execFileAsync(go, args, {
      cwd,
      env,
      timeout: GO_BUILD_TIMEOUT_MS,
      maxBuffer: 64 * 1024 * 1024,
    });
    // Show Go's progress ("go: downloading …") as it happens.
    child.child.stderr?.pipe(process.stderr, { end: false });
    return (await child).stdout;
  };
  const work = await mkdtemp(join(tmpdir(), 'dropflow-temporal-cli-'));
  try {
    const download = JSON.parse(
      await run(['mod', 'download', '-json', `${CLI_MODULE}@${TEMPORAL_CLI_VERSION}`]),
    ) as { Dir?: string };
    if (download.Dir === undefined) throw new Error('`go mod download` named no directory');
    const module = join(work, 'cli');
    await cp(download.Dir, module, { recursive: true });
    await makeWritable(module);
    await mkdir(join(module, 'cmd', 'dropflow-dev-server'));
    await copyFile(MAIN_SOURCE, join(module, 'cmd', 'dropflow-dev-server', 'main.go'));
    await run(
      ['mod', 'edit', `-droprequire=${CLIEXT_MODULE}`, `-dropreplace=${CLIEXT_MODULE}`],
      module,
    );
    await mkdir(binDir, { recursive: true });
    const version = `${TEMPORAL_CLI_VERSION} (server ${TEMPORAL_SERVER_VERSION}, UI ${TEMPORAL_UI_VERSION}; server start-dev only, built by dropflow)`;
    const partial = `${path}.${String(process.pid)}.partial`;
    await run(
      [
        'build',
        '-ldflags',
        `-X 'main.version=${version}'`,
        '-o',
        partial,
        './cmd/dropflow-dev-server',
      ],
      module,
    );
    // Renamed into place whole, so a concurrent start never runs half a binary.
    await rename(partial, path);
  } catch (err) {
    log.warn(
      { err },
      'building the Temporal dev server with Go failed; falling back to a `temporal` on PATH or the download by @temporalio/testing',
    );
    return undefined;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  const seconds = Math.round((performance.now() - started) / 1000);
  process.stderr.write(`dropflow: built the Temporal dev server in ${String(seconds)}s: ${path}\n`);
  return path;
}

async function fromGo(log: CliLog): Promise<string | undefined> {
  const go = await findOnPath('go');
  if (go === undefined) return undefined;
  const binDir = await goBinDir(go, log);
  if (binDir === undefined) return undefined;
  const name = await buildName();
  const built = join(binDir, name);
  if (await isFile(built)) {
    log.debug({ path: built }, 'Temporal dev server built by dropflow');
    return built;
  }
  return goBuild(go, binDir, name, log);
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

  const built = await fromGo(log);
  if (built !== undefined) return built;

  const onPath = await findOnPath('temporal');
  if (onPath !== undefined) {
    log.warn(
      { path: onPath },
      `Temporal CLI from PATH: its dev server may be older than server ${TEMPORAL_SERVER_VERSION}, which fair queues need (docs/accounts.md)`,
    );
    return onPath;
  }
  log.debug('no Go and no Temporal CLI: @temporalio/testing will download the CLI');
  return undefined;
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
