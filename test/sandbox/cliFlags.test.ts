import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { expect, it } from 'vitest';
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
