import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { SupplierClient } from '../../src/supplier/client.js';

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
