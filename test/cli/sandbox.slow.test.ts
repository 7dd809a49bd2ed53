import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { expect, it } from 'vitest';

it('`dropflow sandbox --port 0` serves the API and stops cleanly on SIGTERM', async () => {
  const child = spawn(process.execPath, ['bin/dropflow.js', 'sandbox', '--port', '0', '--memory'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LOG_LEVEL: 'warn' },
  });
  const lines = createInterface({ input: child.stdout });
  let url: string | undefined;
  for await (const line of lines) {
    url = /sandbox: (http:\/\/[\d.:]+)\//.exec(line)?.[1];
    if (url !== undefined) break;
  }
  expect(url).toBeDefined();

  const res = await fetch(`${url}/api2.0/v1/authentication/getAccessToken`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiKey: 'sandbox' }),
  });
  const body = (await res.json()) as { code: number; data: { accessToken: string } };
  expect(body.code).toBe(200);
  expect(body.data.accessToken).toMatch(/\w+/);

  child.kill('SIGTERM');
  const [code] = (await once(child, 'exit')) as [number | null];
  expect(code).toBe(0);
});
