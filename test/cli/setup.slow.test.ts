/**
 * `dropflow setup` registers the search attributes in a namespace that lacks them, and finds them
 * present the second time.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client } from '@temporalio/client';
import { expect, inject, it } from 'vitest';
import { searchAttributeTypes } from '../../src/temporal/searchAttributes.js';
import { useNewNamespace } from '../support/temporal.js';

const run = promisify(execFile);
const ns = useNewNamespace('setup');
const namespace = ns.namespace;

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

  const client = new Client({ connection: ns.connection, namespace });
  const { customAttributes } = await client.connection.operatorService.listSearchAttributes({
    namespace,
  });
  for (const name of names) expect(customAttributes[name], name).toBeDefined();
});
