/**
 * Turning tracing on or off in a deploy changes nothing a workflow does (docs/tracing.md): a run
 * made with the tracing interceptors replays without them, even where a command depends on the
 * workflow's random numbers (the interceptors draw their span ids from a stream of their own).
 */
import { fileURLToPath } from 'node:url';

import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';

import { installRuntimeLogger } from '../../src/temporal/runtimeLogger.js';
import { REPLAY_TRACE_SINKS, WORKFLOW_TRACE_INTERCEPTORS } from '../../src/temporal/tracing.js';
import { silentLogger as quiet } from '../support/logger.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/tracedRandom.ts', import.meta.url));

let connection: NativeConnection;
let clientConnection: Connection;

beforeAll(async () => {
  installRuntimeLogger();
  connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  clientConnection = await Connection.connect({ address: inject('temporalAddress') });
});

afterAll(async () => {
  await clientConnection.close();
  await connection.close();
});

it('a run traced replays untraced: same commands, same random numbers', async () => {
  const [traced, plain] = await Promise.all([
    bundleWorkflowCode({
      workflowsPath: FIXTURE,
      workflowInterceptorModules: [WORKFLOW_TRACE_INTERCEPTORS],
      logger: quiet,
    }),
    bundleWorkflowCode({ workflowsPath: FIXTURE, logger: quiet }),
  ]);
  const namespace = inject('temporalNamespace');
  const taskQueue = `traced-random-${process.pid}-${Date.now().toString(36)}`;
  const worker = await Worker.create({
    connection,
    namespace,
    taskQueue,
    workflowBundle: traced,
    sinks: REPLAY_TRACE_SINKS,
    activities: { pause: () => Promise.resolve() },
  });
  const client = new Client({ connection: clientConnection, namespace });
  const workflowId = `${taskQueue}-run`;
  await worker.runUntil(
    client.workflow.execute('drawsAfterTracedCalls', { workflowId, taskQueue, args: [] }),
  );
  const history = await client.workflow.getHandle(workflowId).fetchHistory();

  await expect(
    Worker.runReplayHistory({ workflowBundle: plain, replayName: taskQueue }, history, workflowId),
  ).resolves.toBeUndefined();
});
