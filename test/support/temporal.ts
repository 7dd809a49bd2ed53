/** The test run's Temporal dev server (test/setup/global.ts) as test files use it directly. */
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { afterAll, beforeAll, inject } from 'vitest';

export interface TestNamespace {
  /** Its name, known at once. */
  readonly namespace: string;
  /** A connection to the dev server, once the block's beforeAll has run. */
  readonly connection: Connection;
}

/**
 * A new, empty namespace (no search attributes) of the test file, registered in a beforeAll; its
 * connection is closed in an afterAll.
 */
export function useNewNamespace(tag: string): TestNamespace {
  const namespace = `${tag}-${process.pid}-${Date.now().toString(36)}`;
  let connection: Connection | undefined;
  beforeAll(async () => {
    connection = await Connection.connect({ address: inject('temporalAddress') });
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs('1 day'),
    });
  });
  afterAll(async () => {
    await connection?.close();
  });
  return {
    namespace,
    get connection() {
      if (connection === undefined) throw new Error(`${namespace} is used before its beforeAll`);
      return connection;
    },
  };
}
