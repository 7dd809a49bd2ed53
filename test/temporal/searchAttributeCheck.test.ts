/**
 * The workers' start check: a namespace that lacks one of dropflow's search attributes, or has it
 * with another type, is refused with their names; one that has them all passes; a listing that
 * fails is a warning, not a refusal.
 */
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes.js';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';

import {
  registerSearchAttributes,
  requireSearchAttributes,
  searchAttributeMismatches,
} from '../../src/temporal/registerSearchAttributes.js';
import { searchAttributeTypes } from '../../src/temporal/searchAttributes.js';

let connection: Connection;
const run = `${process.pid}-${Date.now().toString(36)}`;

beforeAll(async () => {
  connection = await Connection.connect({ address: inject('temporalAddress') });
});
afterAll(() => connection.close());

async function freshNamespace(tag: string): Promise<string> {
  const namespace = `sa-check-${tag}-${run}`;
  await connection.workflowService.registerNamespace({
    namespace,
    workflowExecutionRetentionPeriod: msToTs('1 day'),
  });
  return namespace;
}

const noWarnings = {
  warn: (...args: unknown[]) => {
    throw new Error(`unexpected warning: ${JSON.stringify(args)}`);
  },
};

it("passes the test server's namespace, which has them all", async () => {
  const namespace = inject('temporalNamespace');
  expect(await searchAttributeMismatches(connection, namespace)).toEqual([]);
  await expect(requireSearchAttributes(connection, namespace, noWarnings)).resolves.toBeUndefined();
});

it('refuses a fresh namespace, naming every attribute it lacks', async () => {
  const namespace = await freshNamespace('fresh');
  const names = Object.keys(searchAttributeTypes);
  expect(names).toContain('StoreEventsBehind');
  const mismatches = await searchAttributeMismatches(connection, namespace);
  expect(mismatches.map((m) => m.name).sort()).toEqual([...names].sort());
  await expect(requireSearchAttributes(connection, namespace, noWarnings)).rejects.toThrow(
    `refusing to start: namespace ${namespace} lacks search attributes `,
  );
  // After `dropflow setup` it passes.
  await registerSearchAttributes(connection, namespace);
  await expect(requireSearchAttributes(connection, namespace, noWarnings)).resolves.toBeUndefined();
});

it('names the one attribute missing, and one registered with another type', async () => {
  const missingOne = await freshNamespace('one');
  const { StoreEventsBehind: _, ...others } = searchAttributeTypes;
  await connection.operatorService.addSearchAttributes({
    namespace: missingOne,
    searchAttributes: Object.fromEntries(
      Object.entries(others).map(([name, type]) => [
        name,
        encodeSearchAttributeIndexedValueType(type)!,
      ]),
    ),
  });
  await expect(requireSearchAttributes(connection, missingOne, noWarnings)).rejects.toThrow(
    `refusing to start: namespace ${missingOne} lacks search attributes StoreEventsBehind (Bool); run "dropflow setup" (self-hosted) or add them in Temporal Cloud first`,
  );

  const wrongType = await freshNamespace('type');
  await connection.operatorService.addSearchAttributes({
    namespace: wrongType,
    searchAttributes: Object.fromEntries(
      Object.entries({ ...others, StoreEventsBehind: 'KEYWORD' as const }).map(([name, type]) => [
        name,
        encodeSearchAttributeIndexedValueType(type)!,
      ]),
    ),
  });
  await expect(requireSearchAttributes(connection, wrongType, noWarnings)).rejects.toThrow(
    `lacks search attributes StoreEventsBehind (Bool; registered as Keyword);`,
  );
});

it('warns and lets the workers start when the attributes cannot be listed', async () => {
  const warnings: unknown[][] = [];
  await requireSearchAttributes(connection, `no-such-namespace-${run}`, {
    warn: (...args: unknown[]) => warnings.push(args),
  });
  expect(warnings).toHaveLength(1);
  expect(JSON.stringify(warnings[0])).toContain('could not list');
});
