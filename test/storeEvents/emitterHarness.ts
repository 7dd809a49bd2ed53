/**
 * A worker of stand-in order and dispute workflows (fixtures/emitters.ts) that record store events
 * in their histories as the real outbox does, with encrypted payloads: for the readers of those
 * histories (`recordedStoreEvents`, `dropflow events replay`).
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';

import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { inject } from 'vitest';

import type { StoreEvent } from '../../src/storeEvents/contract.js';
import {
  dataConverterFor,
  EncryptionCodec,
  FAILURE_CONVERTER_PATH,
  type EncryptionKey,
} from '../../src/temporal/encryption.js';
import { installRuntimeLogger } from '../../src/temporal/runtimeLogger.js';
import type { EmitInput } from './fixtures/emitters.js';
import { silentLogger as quiet } from '../support/logger.js';

export interface EmitterHarness {
  key: EncryptionKey;
  /** A client that encrypts and decrypts with `key`. */
  client: Client;
  /** A client without the key: it reads the histories as they are stored. */
  plainClient: Client;
  /** Runs a stand-in workflow of `type` under `workflowId` until it has emitted `events`. */
  emit(
    type: 'fulfillOrder' | 'disputeOrder',
    workflowId: string,
    events: EmitInput['events'],
  ): Promise<void>;
  close(): Promise<void>;
}

export async function emitterHarness(tag: string): Promise<EmitterHarness> {
  installRuntimeLogger();
  const key: EncryptionKey = { id: 'store-events-test', key: randomBytes(32) };
  const dataConverter = dataConverterFor(new EncryptionCodec({ current: key }));
  const address = inject('temporalAddress');
  const namespace = inject('temporalNamespace');
  const taskQueue = `${tag}-${process.pid}-${Date.now().toString(36)}`;
  const nativeConnection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection: nativeConnection,
    namespace,
    taskQueue,
    dataConverter,
    workflowBundle: await bundleWorkflowCode({
      workflowsPath: fileURLToPath(new URL('./fixtures/emitters.ts', import.meta.url)),
      failureConverterPath: FAILURE_CONVERTER_PATH,
      logger: quiet,
    }),
    activities: {
      deliverStoreEvent: () => Promise.resolve({ outcome: 'delivered', status: 200 }),
      somethingElse: () => Promise.resolve(null),
    },
  });
  const running = worker.run();
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, namespace, dataConverter });
  const plainClient = new Client({ connection, namespace });
  return {
    key,
    client,
    plainClient,
    async emit(type, workflowId, events) {
      await client.workflow.execute(type, { workflowId, taskQueue, args: [{ events }] });
    },
    async close() {
      worker.shutdown();
      await running;
      await connection.close();
      await nativeConnection.close();
    },
  };
}

let counter = 0;

/** A store event of `orderNumber` with a fresh id. */
export function storeEvent(
  orderNumber: string,
  type: 'order.paid' | 'dispute.updated' = 'order.paid',
): StoreEvent {
  const id = `evt_${randomBytes(8).toString('hex')}`;
  const occurredAt = new Date(Date.UTC(2026, 10, 23, 12, 0, counter++)).toISOString();
  return type === 'order.paid'
    ? {
        id,
        type,
        occurredAt,
        orderNumber,
        stage: 'PAID',
        data: { amount: 12.5, currency: 'USD', paidAt: occurredAt },
      }
    : {
        id,
        type,
        occurredAt,
        orderNumber,
        stage: 'OPEN',
        data: { businessDisputeId: 'df-test', status: 'OPEN' },
      };
}
