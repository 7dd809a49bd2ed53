/**
 * `dropflow dev` whose sandbox port is taken says so and exits, stopping the Temporal server it
 * had already started, instead of staying up half-started.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, expect, it } from 'vitest';

const servers: Server[] = [];
let dir: string | undefined;
afterAll(async () => {
  for (const s of servers) s.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

async function listen(port = 0): Promise<Server> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  return server;
}

async function freePort(): Promise<number> {
  const server = await listen();
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

function listening(port: number): Promise<boolean> {
  return new Promise((settle) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      settle(true);
    });
    socket.once('error', () => {
      settle(false);
    });
  });
}

it('a taken port ends dev with the reason, and its Temporal server stops with it', async () => {
  dir = await mkdtemp(join(tmpdir(), 'dropflow-dev-port-'));
  const taken = await listen();
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
  const [code] = (await once(dev, 'exit')) as [number | null];
  expect(code).toBe(1);
  expect(stderr).toMatch(/EADDRINUSE|address already in use/i);
  expect(await listening(temporalPort)).toBe(false);
}, 180_000);
