/** The Temporal connection's TLS settings are checked at start, with the variable named. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, inject, it } from 'vitest';

const run = promisify(execFile);

async function listWith(env: Record<string, string>): Promise<string> {
  const failed = await run(
    process.execPath,
    ['bin/dropflow.js', 'list', '--temporal-address', inject('temporalAddress')],
    { env: { ...process.env, LOG_LEVEL: 'warn', ...env } },
  ).then(
    () => undefined,
    (e: unknown) => e as { stderr: string; code: number },
  );
  expect(failed?.code).toBe(1);
  return failed?.stderr ?? '';
}

it('refuses a client certificate without its key, and a certificate file that is not there', async () => {
  expect(await listWith({ TEMPORAL_TLS_CERT: '/tmp/client.pem' })).toMatch(
    /TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together/,
  );
  expect(
    await listWith({
      TEMPORAL_TLS_CERT: '/nonexistent/client.pem',
      TEMPORAL_TLS_KEY: '/nonexistent/client.key',
    }),
  ).toMatch(/ENOENT.*client\.pem/);
});
