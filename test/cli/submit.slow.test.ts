/** `dropflow submit` refuses an invalid order before it needs Temporal: `field: rule`, exit 2. */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { expect, it } from 'vitest';
import { runDropflow } from '../support/cli.js';

function submit(stdin: string, ...args: string[]) {
  // Nothing listens there: the command must not get as far as connecting.
  return runDropflow(['submit', '-', ...args], { stdin, env: { TEMPORAL_ADDRESS: '127.0.0.1:1' } });
}

it('prints the field issues of an invalid order and exits with 2', async () => {
  const order = JSON.parse(await readFile('examples/order-flow-b.json', 'utf8')) as Record<
    string,
    unknown
  >;
  delete order['shippingCountryCode'];
  const { code, stdout, stderr } = await submit(JSON.stringify(order));
  expect(code).toBe(2);
  expect(stdout).toBe('');
  expect(stderr.split('\n')).toContain('shippingCountryCode: is required');
});

it('with --json, prints the issues as one JSON document', async () => {
  const { code, stdout } = await submit('{"orderNumber": 1}', '--json');
  expect(code).toBe(2);
  const answer = JSON.parse(stdout) as { outcome: string; issues: { field: string }[] };
  expect(answer.outcome).toBe('invalid');
  expect(answer.issues.map((i) => i.field)).toContain('orderNumber');
});

it('refuses an account the registry does not have, and a malformed one, starting nothing', async () => {
  const order = JSON.parse(await readFile('examples/order-flow-b.json', 'utf8')) as Record<
    string,
    unknown
  >;
  const dataDir = await mkdtemp(join(tmpdir(), 'dropflow-submit-'));
  const unknown = await runDropflow(['submit', '-'], {
    stdin: JSON.stringify({ ...order, account: 'shop-z' }),
    env: { TEMPORAL_ADDRESS: '127.0.0.1:1', DROPFLOW_DATA_DIR: dataDir },
  });
  expect(unknown.code).toBe(2);
  expect(unknown.stderr.split('\n')).toContain('account: no such supplier account');
  const malformed = await submit(JSON.stringify({ ...order, account: 'Shop Z' }));
  expect(malformed.code).toBe(2);
  expect(malformed.stderr).toMatch(/^account: must be 1 to 32 lower-case letters/m);
});
