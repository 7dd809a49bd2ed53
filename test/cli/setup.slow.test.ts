/**
 * `dropflow setup` registers the search attributes in a namespace that lacks them, and finds them
 * present the second time.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { searchAttributeTypes } from '../../src/temporal/searchAttributes.js';

const run = promisify(execFile);
const namespace = `setup-${process.pid}-${Date.now().toString(36)}`;
let connection: Connection;

beforeAll(async () => {
  connection = await Connection.connect({ address: inject('temporalAddress') });
  await connection.workflowService.registerNamespace({
    namespace,
    workflowExecutionRetentionPeriod: msToTs('1 day'),
  });
});
afterAll(() => connection.close());

async function setup(): Promise<{ added: string[]; present: string[] }> {
  const { stdout } = await run(
    process.execPath,
    [
      'bin/dropflow.js',
      'setup',
      '--temporal-address',
      inject('temporalAddress'),
      '--namespace',
      namespace,
      '--json',
    ],
    { env: { ...process.env, LOG_LEVEL: 'warn' } },
  );
  return JSON.parse(stdout) as { added: string[]; present: string[] };
}

it('registers the five search attributes once', async () => {
  const names = Object.keys(searchAttributeTypes).sort();
  expect((await setup()).added.sort()).toEqual(names);
  const again = await setup();
  expect(again.added).toEqual([]);
  expect(again.present.sort()).toEqual(names);

  const client = new Client({ connection, namespace });
  const { customAttributes } = await client.connection.operatorService.listSearchAttributes({
    namespace,
  });
  for (const name of names) expect(customAttributes[name], name).toBeDefined();
});
