import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandbox } from '../../tools/src/sandbox/server.js';
import type { SandboxStats } from '../../tools/src/sandbox/state.js';
import { SupplierClient } from '../../src/supplier/client.js';
import { usOrder } from '../supplier/orderHelpers.js';
import { changeSettings, control, readSettings } from './controls.js';

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'dropflow-persist-'));
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

const log = pino({ level: 'silent' });

it('keeps accounts, tokens and balances across a restart', async () => {
  const first = await startSandbox({ log, port: 0, dataDir });
  const created = await fetch(`${first.url}/__sandbox/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiKey: 'persisted-key', balance: 1234.5 }),
  });
  const { openId } = (await created.json()) as { openId: string };
  const before = new SupplierClient({ baseUrl: first.url, apiKey: 'persisted-key' });
  const tokens = await before.api.getAccessToken({ apiKey: 'persisted-key' });
  await before.close();
  await first.close();

  const second = await startSandbox({ log, port: 0, dataDir });
  try {
    const after = new SupplierClient({
      baseUrl: second.url,
      apiKey: 'persisted-key',
      tokenCallIntervalMs: 1_000,
    });
    const again = await after.api.getAccessToken({ apiKey: 'persisted-key' });
    expect(again.openId).toBe(openId);
    expect(again.accessToken).toBe(tokens.accessToken);
    expect(second.sandbox.account(openId).balance.amount).toBe(1234.5);
    await after.close();
  } finally {
    await second.close();
  }
});

/** What state files written before the status history, the settings and that counter lack. */
const NEWER_KEYS = new Set(['statusHistory', 'settings', 'expiredPaymentsRefused']);

it('loads a state file of an older version, without status histories, settings or newer counters', async () => {
  const dir = join(dataDir, 'older');
  const first = await startSandbox({ log, port: 0, dataDir: dir });
  const openId = first.sandbox.defaultAccount().openId;
  const client = new SupplierClient({ baseUrl: first.url, apiKey: 'sandbox' });
  const created = await client.api.createOrderV3(usOrder());
  const orderId = created.orderId!;
  await client.api.addCart({ svcOrderIdList: [orderId] });
  await changeSettings({ openId, payWindowSeconds: 30 }, first.url);
  await client.close();
  await first.close();

  const path = join(dir, 'sandbox-state.json');
  const written = await readFile(path, 'utf8');
  for (const key of NEWER_KEYS) expect(written).toContain(`"${key}"`);
  const older = JSON.parse(written, (key, value: unknown) =>
    NEWER_KEYS.has(key) ? undefined : value,
  ) as unknown;
  await writeFile(path, JSON.stringify(older));

  const second = await startSandbox({ log, port: 0, dataDir: dir, batchLagMs: 1 });
  try {
    const after = new SupplierClient({
      baseUrl: second.url,
      apiKey: 'sandbox',
      tokenCallIntervalMs: 1_000,
    });
    expect(await after.api.getOrderDetail({ orderId })).toMatchObject({ orderStatus: 'IN_CART' });
    const stats = await control<SandboxStats>(
      'GET',
      `stats?openId=${openId}`,
      undefined,
      second.url,
    );
    expect(stats.body).toMatchObject({ ordersCreated: 1, expiredPaymentsRefused: 0 });
    expect((await readSettings(openId, second.url)).body).toMatchObject({
      batchLagMs: 1,
      payWindowSeconds: 24 * 60 * 60,
    });
    const confirmed = await after.api.addCartConfirm({ svcOrderIdList: [orderId] });
    expect(confirmed.submitSuccess).toBe(true);
    await after.close();
  } finally {
    await second.close();
  }
});
