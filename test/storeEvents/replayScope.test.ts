/**
 * The store-events replay is scoped to the order's account: it reads the run of that account only
 * (its SupplierAccount, not its id) and sends to that account's store, never another's.
 */
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';

import { storeTargetOf } from '../../src/cli/commands/events.js';
import { orderWorkflowId } from '../../src/order/contract.js';
import {
  OrderOfAnotherAccountError,
  recordedStoreEvents,
} from '../../src/cli/storeEventHistory.js';
import { SupplierAccount } from '../../src/temporal/searchAttributes.js';

let connection: Connection;
let client: Client;
const tag = `replay-scope-${process.pid}-${Date.now().toString(36)}`;
const started: string[] = [];

beforeAll(async () => {
  connection = await Connection.connect({ address: inject('temporalAddress') });
  client = new Client({ connection, namespace: inject('temporalNamespace') });
});
afterAll(async () => {
  for (const id of started) {
    await client.workflow
      .getHandle(id)
      .terminate('test over')
      .catch(() => undefined);
  }
  await connection.close();
});

/** An order run that no worker takes: only its start is in its history. */
async function idleOrder(workflowId: string, account?: string): Promise<void> {
  started.push(workflowId);
  await client.workflow.start('fulfillOrder', {
    workflowId,
    taskQueue: `${tag}/orders`,
    args: [],
    ...(account !== undefined && {
      typedSearchAttributes: [{ key: SupplierAccount, value: account }],
    }),
  });
}

it('refuses an order whose run belongs to another account, whatever its id says', async () => {
  const number = `${tag}-x`;
  await idleOrder(orderWorkflowId(number, 'shop-a'), 'shop-b');
  await expect(recordedStoreEvents(client, number, 'shop-a')).rejects.toBeInstanceOf(
    OrderOfAnotherAccountError,
  );
});

it("reads the account's own order, and the default account's runs started before accounts", async () => {
  const mine = `${tag}-a`;
  await idleOrder(orderWorkflowId(mine, 'shop-a'), 'shop-a');
  expect(await recordedStoreEvents(client, mine, 'shop-a')).toEqual([]);
  const old = `${tag}-d`;
  await idleOrder(orderWorkflowId(old));
  expect(await recordedStoreEvents(client, old)).toEqual([]);
  await expect(recordedStoreEvents(client, old, 'shop-a')).rejects.toThrow(/no order/);
});

it("sends to the account's own store, else the deployment's", () => {
  const deployment = { url: 'https://store.example.com/events', secret: 'whsec_deployment' };
  const own = {
    id: 'shop-a',
    tier: 1 as const,
    apiKey: 'k',
    intakeTokenSha256: [],
    storeEventsUrl: 'https://shop-a.example.com/events',
    storeEventsSecret: 'whsec_a',
  };
  expect(storeTargetOf(own, deployment)).toEqual({
    url: 'https://shop-a.example.com/events',
    secret: 'whsec_a',
  });
  const { storeEventsUrl: _u, storeEventsSecret: _s, ...plain } = own;
  expect(storeTargetOf(plain, deployment)).toEqual(deployment);
});
