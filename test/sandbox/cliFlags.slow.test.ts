import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { expect, it } from 'vitest';
import { SupplierCode } from '../../src/supplier/errors.js';
import { readSettings } from './controls.js';

it('`dropflow sandbox --batch-lag-ms --pay-window-seconds --token-interval-s` sets the defaults of every account', async () => {
  const child = spawn(
    process.execPath,
    [
      'bin/dropflow.js',
      'sandbox',
      '--port',
      '0',
      '--memory',
      '--one-budget',
      '--batch-lag-ms',
      '1500',
      '--pay-window-seconds',
      '90',
      '--token-interval-s',
      '42',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'warn' } },
  );
  try {
    let url: string | undefined;
    for await (const line of createInterface({ input: child.stdout })) {
      url = /sandbox: (http:\/\/[\d.:]+)\//.exec(line)?.[1];
      if (url !== undefined) break;
    }
    expect(url).toBeDefined();
    expect((await readSettings(undefined, url)).body).toEqual({
      batchLagMs: 1_500,
      disputeLagMs: 0,
      oneBudget: true,
      payWindowSeconds: 90,
      tokenIntervalSeconds: 42,
      ratePerSecond: expect.any(Number) as number,
    });
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  }
});

it('`dropflow sandbox --refreshes-per-minute` limits refreshAccessToken per account', async () => {
  const child = spawn(
    process.execPath,
    ['bin/dropflow.js', 'sandbox', '--port', '0', '--memory', '--refreshes-per-minute', '1'],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'warn' } },
  );
  try {
    let url: string | undefined;
    for await (const line of createInterface({ input: child.stdout })) {
      url = /sandbox: (http:\/\/[\d.:]+)\//.exec(line)?.[1];
      if (url !== undefined) break;
    }
    expect(url).toBeDefined();
    const call = async (path: string, body: unknown) => {
      const res = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return (await res.json()) as { code: number; data: { refreshToken: string } };
    };
    const { apiKey } = (await call('/__sandbox/accounts', {})) as unknown as { apiKey: string };
    const { refreshToken } = (await call('/api2.0/v1/authentication/getAccessToken', { apiKey }))
      .data;
    // Each call past the token endpoints' 1 per second, so that only the refresh limit can refuse.
    const refresh = async () => {
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      return call('/api2.0/v1/authentication/refreshAccessToken', { refreshToken });
    };
    expect((await refresh()).code).toBe(SupplierCode.Success);
    expect((await refresh()).code).toBe(SupplierCode.TooManyRequests);
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  }
});
