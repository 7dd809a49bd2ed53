/**
 * The commands find a running `dropflow dev` through `<data dir>/dev.json` when no Temporal address
 * is given (flags and environment win), ignore a file whose dev is gone, and say where they looked
 * when nothing answers there.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import {
  DEV_STATE_FILE,
  readDevState,
  writeDevState,
  type DevState,
} from '../../src/cli/devState.js';
import { temporalTarget } from '../../src/cli/temporal.js';
import { loadConfig } from '../../src/config/environment.js';
import { runDropflow } from '../support/cli.js';

const devState = (address: string, namespace: string, pid = process.pid): DevState => ({
  pid,
  startedAt: new Date().toISOString(),
  temporal: { address, namespace, taskQueuePrefix: 'devacct' },
  ports: { temporal: Number(address.split(':')[1]), gateway: 18080, metrics: 0 },
  urls: { gateway: 'http://127.0.0.1:18080', supplier: 'http://127.0.0.1:18787' },
  intakeToken: 'intake-token-of-the-dev',
});

/** A pid no process has: a child's, once it exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit');
  return child.pid!;
}

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

/** `dropflow <args>` with the data dir and no Temporal variables but those given. */
function dropflow(dataDir: string, args: string[], env: Record<string, string> = {}) {
  return runDropflow(args, {
    // The test run's own Temporal is not the one the command must find.
    env: {
      TEMPORAL_ADDRESS: undefined,
      TEMPORAL_NAMESPACE: undefined,
      TEMPORAL_TASK_QUEUE_PREFIX: undefined,
      DROPFLOW_DATA_DIR: dataDir,
      ...env,
    },
  });
}

describe('the state file of dropflow dev', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dropflow-devstate-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('is private to its owner, read back while its dev runs, and removed by it', async () => {
    const remove = await writeDevState(dir, devState('127.0.0.1:17233', 'default'));
    expect((await stat(join(dir, DEV_STATE_FILE))).mode & 0o777).toBe(0o600);
    expect(readDevState(dir)?.temporal.address).toBe('127.0.0.1:17233');
    await remove();
    expect(readDevState(dir)).toBeUndefined();
  });

  it('is ignored once the dev that wrote it is gone', async () => {
    const file = join(dir, DEV_STATE_FILE);
    await writeFile(file, JSON.stringify(devState('127.0.0.1:17233', 'default', await deadPid())));
    expect(readDevState(dir)).toBeUndefined();
    await rm(file);
  });

  it("gives the commands dev's address, namespace and queues when none is given", async () => {
    const remove = await writeDevState(dir, devState('127.0.0.1:17233', 'devns'));
    try {
      const config = loadConfig({ DROPFLOW_DATA_DIR: dir });
      expect(temporalTarget({}, config, {})).toMatchObject({
        address: '127.0.0.1:17233',
        namespace: 'devns',
        queues: { orders: expect.stringContaining('devacct') as unknown },
        source: 'dev',
      });
      // A given address wins, and dev's namespace and queues go with dev's address only.
      const env = { TEMPORAL_ADDRESS: 'temporal.example.com:7233' };
      expect(temporalTarget({}, loadConfig({ ...env, DROPFLOW_DATA_DIR: dir }), env)).toMatchObject(
        { address: 'temporal.example.com:7233', namespace: 'default', source: 'environment' },
      );
      expect(temporalTarget({ temporalAddress: 'other:7233' }, config, {})).toMatchObject({
        address: 'other:7233',
        namespace: 'default',
        source: 'flag',
      });
      // A given namespace wins over dev's.
      const ns = { TEMPORAL_NAMESPACE: 'mine' };
      expect(temporalTarget({}, loadConfig({ ...ns, DROPFLOW_DATA_DIR: dir }), ns)).toMatchObject({
        address: '127.0.0.1:17233',
        namespace: 'mine',
      });
    } finally {
      await remove();
    }
    expect(temporalTarget({}, loadConfig({ DROPFLOW_DATA_DIR: dir }), {})).toMatchObject({
      address: 'localhost:7233',
      source: 'default',
    });
  });
});

describe('commands against the Temporal of a running dev, or of nothing', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dropflow-devstate-cli-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("`dropflow list` reaches dev's Temporal without --temporal-address", async () => {
    const remove = await writeDevState(
      dir,
      devState(inject('temporalAddress'), inject('temporalNamespace')),
    );
    try {
      const listed = await dropflow(dir, ['list', '--json', '--limit', '1']);
      expect(listed.stderr).toBe('');
      expect(listed.code).toBe(0);
      expect(Array.isArray(JSON.parse(listed.stdout))).toBe(true);
    } finally {
      await remove();
    }
  });

  it('names the address and namespace when nothing listens there', async () => {
    const port = await closedPort();
    const { code, stderr } = await dropflow(dir, ['status', 'NOPE-1'], {
      TEMPORAL_ADDRESS: `127.0.0.1:${port}`,
      TEMPORAL_NAMESPACE: 'ops',
    });
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      `dropflow: cannot reach Temporal at 127.0.0.1:${port} (namespace ops): connection refused (nothing listens there)`,
    );
  });

  it("names dev's state file when the address it gives does not answer", async () => {
    const port = await closedPort();
    const remove = await writeDevState(dir, devState(`127.0.0.1:${port}`, 'default'));
    try {
      const { code, stderr } = await dropflow(dir, ['list']);
      expect(code).toBe(1);
      expect(stderr).toContain(`cannot reach Temporal at 127.0.0.1:${port} (namespace default)`);
      expect(stderr).toContain(DEV_STATE_FILE);
    } finally {
      await remove();
    }
  });
});
