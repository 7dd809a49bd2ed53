/**
 * `dropflow dev` with SUPPLIER_BASE_URL runs against that supplier (no sandbox of its own, no
 * webhook registration there), and the other commands find it through its dev.json: here the
 * supplier is the tests' sandbox, reached over HTTP as a remote supplier would be.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DEV_STATE_FILE, type DevState } from '../../src/cli/devState.js';
import { devSupplier, shownSupplierUrl } from '../../src/cli/devSupplier.js';
import { ConfigError, loadConfig } from '../../src/config/environment.js';
import { cleanEnv, startDev, type RunningDev } from '../support/dev.js';
import { eventually } from '../support/eventually.js';
import { newSandboxAccount, type TestAccount } from '../support/sandbox.js';
import { freePort, holdPort } from '../support/ports.js';

describe('devSupplier', () => {
  it('is the sandbox without SUPPLIER_BASE_URL, on the given port or SANDBOX_PORT', () => {
    expect(devSupplier(loadConfig({}))).toEqual({
      kind: 'sandbox',
      port: 8787,
      apiKey: 'sandbox',
    });
    expect(devSupplier(loadConfig({ SANDBOX_PORT: '9999' }), 18787)).toMatchObject({
      kind: 'sandbox',
      port: 18787,
    });
  });

  it('is the named supplier with SUPPLIER_BASE_URL, and needs its API key', () => {
    const config = loadConfig({
      SUPPLIER_BASE_URL: 'https://supplier.example.com',
      SUPPLIER_API_KEY: 'k-123',
    });
    expect(devSupplier(config, 18787)).toEqual({
      kind: 'remote',
      baseUrl: 'https://supplier.example.com',
      apiKey: 'k-123',
    });
    expect(() =>
      devSupplier(loadConfig({ SUPPLIER_BASE_URL: 'https://supplier.example.com' })),
    ).toThrow(ConfigError);
  });

  it('shows the address without credentials or query', () => {
    expect(shownSupplierUrl('https://user:secret@supplier.example.com/api/?key=abc')).toBe(
      'https://supplier.example.com/api/',
    );
    expect(shownSupplierUrl('http://127.0.0.1:8787')).toBe('http://127.0.0.1:8787');
  });
});

describe('dropflow dev with SUPPLIER_BASE_URL', () => {
  let dir: string;
  let account: TestAccount;
  let dev: RunningDev;
  let stdout = '';
  let sandboxPort: number;
  let heldSandboxPort: Server;
  let state: DevState;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dropflow-dev-remote-'));
    account = await newSandboxAccount();
    // The sandbox port stays held by this test: dev starting at all shows it never tried to
    // bind a sandbox there (a taken sandbox port ends dev, see devPortTaken).
    heldSandboxPort = await holdPort();
    sandboxPort = (heldSandboxPort.address() as { port: number }).port;
    const ports = await Promise.all([freePort(), freePort(), freePort()]);
    dev = await startDev(
      dir,
      [
        '--temporal-port',
        String(ports[0]),
        '--ui-port',
        String(ports[1]),
        '--gateway-port',
        String(ports[2]),
        '--sandbox-port',
        String(sandboxPort),
        '--metrics-port',
        '0',
      ],
      { SUPPLIER_BASE_URL: account.url, SUPPLIER_API_KEY: account.apiKey },
    );
    state = dev.state;
    stdout = dev.stdout();
  });

  afterAll(async () => {
    await dev.stop();
    heldSandboxPort.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('starts no sandbox and says which supplier it uses', async () => {
    expect(stdout).toContain(`Supplier        ${account.url}  (SUPPLIER_BASE_URL; no sandbox)`);
    expect(stdout).not.toContain('Sandbox API');
    expect(stdout).toMatch(/Store +off \(no sandbox: no made-up order goes to a real supplier\)/);
    expect(stdout).toMatch(/Webhooks +not registered at a remote supplier: .*webhooks register/);
    expect(stdout).not.toContain(account.apiKey);
    expect(heldSandboxPort.listening).toBe(true);
    expect(state.urls.supplier).toBe(account.url);
    expect(state.ports.sandbox).toBeUndefined();
    expect((await stat(join(dir, DEV_STATE_FILE))).mode & 0o777).toBe(0o600);
  });

  it('takes an order from `dropflow submit` (no --temporal-address) to that supplier', async () => {
    const submit = spawn(
      process.execPath,
      ['bin/dropflow.js', 'submit', 'examples/order-flow-b.json'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: cleanEnv({ DROPFLOW_DATA_DIR: dir }),
      },
    );
    let out = '';
    let err = '';
    submit.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    submit.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const [code] = (await once(submit, 'exit')) as [number | null];
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out.trim()).toBe('order:EXAMPLE-B-0001 started');

    // The remote supplier (the tests' sandbox, this account) created it.
    const stats = await eventually(
      "the order at the supplier's account",
      async () => {
        const res = await fetch(`${account.url}/__sandbox/stats?openId=${account.openId}`);
        return (await res.json()) as { ordersCreated: number };
      },
      (s) => s.ordersCreated >= 1,
      60_000,
    );
    expect(stats.ordersCreated).toBe(1);
  });

  it('removes its dev.json when it stops', async () => {
    await dev.stop();
    expect(existsSync(join(dir, DEV_STATE_FILE))).toBe(false);
  });
});
