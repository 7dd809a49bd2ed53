/**
 * A test file's own workflows (a fixture module), bundled once in a beforeAll, with a worker
 * connection and a client to the run's dev server, closed in an afterAll.
 */
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import {
  bundleWorkflowCode,
  NativeConnection,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { afterAll, beforeAll, inject } from 'vitest';

import { installRuntimeLogger } from '../../src/temporal/runtimeLogger.js';
import { silentLogger } from './logger.js';

export interface FixtureWorkflows {
  readonly workflowBundle: WorkflowBundleWithSourceMap;
  /** For workers. */
  readonly connection: NativeConnection;
  readonly client: Client;
  readonly namespace: string;
}

/** `fixture`: the module's URL, as `new URL('./fixtures/x.ts', import.meta.url)`. */
export function useFixtureWorkflows(fixture: URL): FixtureWorkflows {
  let ready: Omit<FixtureWorkflows, 'namespace'> | undefined;
  let clientConnection: Connection | undefined;
  beforeAll(async () => {
    installRuntimeLogger();
    const workflowsPath = fileURLToPath(fixture);
    const workflowBundle = await bundleWorkflowCode({ workflowsPath, logger: silentLogger });
    const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    clientConnection = await Connection.connect({ address: inject('temporalAddress') });
    const client = new Client({
      connection: clientConnection,
      namespace: inject('temporalNamespace'),
    });
    ready = { workflowBundle, connection, client };
  });
  afterAll(async () => {
    await clientConnection?.close();
    await ready?.connection.close();
  });
  const get = (): Omit<FixtureWorkflows, 'namespace'> => {
    if (ready === undefined) throw new Error('fixture workflows used before their beforeAll');
    return ready;
  };
  return {
    get workflowBundle() {
      return get().workflowBundle;
    },
    get connection() {
      return get().connection;
    },
    get client() {
      return get().client;
    },
    get namespace() {
      return inject('temporalNamespace');
    },
  };
}
