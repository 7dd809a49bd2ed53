/**
 * `dropflow dev` whose sandbox port is taken says so and exits, stopping the Temporal server it
 * had already started, instead of staying up half-started.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, expect, it } from 'vitest';
import { freePort, holdPort, listening } from '../support/ports.js';

const servers: Server[] = [];
let dir: string | undefined;
afterAll(async () => {
  for (const s of servers) s.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

it('a taken port ends dev with the reason, and its Temporal server stops with it', async () => {
  dir = await mkdtemp(join(tmpdir(), 'dropflow-dev-port-'));
  const taken = await holdPort();
  servers.push(taken);
  const sandboxPort = (taken.address() as { port: number }).port;
  const [temporalPort, uiPort, gatewayPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const dev = spawn(
    process.execPath,
    [
      'bin/dropflow.js',
      'dev',
      '--data-dir',
      dir,
      '--temporal-port',
      String(temporalPort),
      '--ui-port',
      String(uiPort),
      '--gateway-port',
      String(gatewayPort),
      '--sandbox-port',
      String(sandboxPort),
      '--metrics-port',
      '0',
    ],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        ...Object.fromEntries(
          Object.entries(process.env).filter(
            ([name]) => !name.startsWith('TEMPORAL_') || name === 'TEMPORAL_CLI_PATH',
          ),
        ),
        LOG_LEVEL: 'warn',
      },
    },
  );
  let stderr = '';
  dev.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // `close`: its stderr is all there only once the pipe is closed.
  const [code] = (await once(dev, 'close')) as [number | null];
  expect(code).toBe(1);
  expect(stderr).toMatch(/EADDRINUSE|address already in use/i);
  expect(await listening(temporalPort)).toBe(false);
}, 180_000);
