/**
 * OrderClient against the real dev server, with the workers of this file's own task-queue set and
 * sandbox account. Only what the client contract guarantees is asserted (ids, idempotency,
 * validation, the search attributes set at start), not the workflow's later stages.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';

import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { defaultPayloadConverter } from '@temporalio/common';

import { staticAccountDirectory } from '../../src/accounts/staticDirectory.js';
import { orderWorkflowId, OrderNotFoundError } from '../../src/order/contract.js';
import {
  INPUT_HASH_MEMO,
  inputHash,
  OrderClient,
  OrderConflictError,
  OrderInvalidError,
} from '../../src/client/orderClient.js';
import { parseOrder, type OrderInput } from '../../src/order/orderInput.js';
import {
  FulfillmentFlow,
  FulfillmentStage,
  NeedsAttention,
  OrderNumber,
} from '../../src/temporal/searchAttributes.js';
import { taskQueues } from '../../src/temporal/taskQueues.js';
import { createWorkers, type WorkerSet } from '../../src/worker.js';
import { workflowBundleOptions, WORKFLOWS_PATH } from '../../src/temporal/workflowBundle.js';
import { sharedWorkflowBundle } from '../support/bundles.js';
import { eventually } from '../support/eventually.js';
import { newSandboxAccount, type TestAccount } from '../support/sandbox.js';

type Order = Record<string, unknown> & { fulfillment: Record<string, unknown> };

async function example(flow: 'a' | 'b' | 'c', orderNumber: string): Promise<Order> {
  const url = new URL(`../../examples/order-flow-${flow}.json`, import.meta.url);
  const order = JSON.parse(await readFile(url, 'utf8')) as Order;
  return { ...order, orderNumber };
}

function newOrderNumber(): string {
  return `OC-${randomUUID().slice(0, 13)}`;
}

describe('OrderClient', () => {
  const prefix = `test-order-client-${randomUUID().slice(0, 8)}`;
  const started: string[] = [];
  let account: TestAccount;
  let workers: WorkerSet;
  let running: Promise<void>;
  let connection: Connection;
  let client: Client;
  let orders: OrderClient;
  /** Same namespace, a queue set no worker polls: workflows stay as they were started. */
  let idle: OrderClient;

  beforeAll(async () => {
    const address = inject('temporalAddress');
    const namespace = inject('temporalNamespace');
    account = await newSandboxAccount();
    const workflowBundle = await sharedWorkflowBundle({
      workflowsPath: WORKFLOWS_PATH,
      ...workflowBundleOptions(),
    });
    workers = await createWorkers({
      address,
      namespace,
      queues: taskQueues(prefix),
      supplier: account.client,
      workflowBundle,
    });
    running = workers.run();
    connection = await Connection.connect({ address });
    client = new Client({ connection, namespace });
    orders = new OrderClient(client, taskQueues(prefix));
    idle = new OrderClient(client, taskQueues(`${prefix}-idle`));
  });

  afterAll(async () => {
    await workers.shutdown();
    await running;
    // Leave nothing running on the shared dev server.
    await Promise.all(
      started.map((id) =>
        client.workflow
          .getHandle(id)
          .terminate('test over')
          .catch(() => undefined),
      ),
    );
    await connection.close();
    await account.client.close();
  });

  it('starts one workflow per orderNumber; the same order again is `existing`', async () => {
    const orderNumber = newOrderNumber();
    const order = await example('b', orderNumber);

    const first = await orders.submit(order);
    started.push(first.workflowId);
    expect(first).toEqual({
      outcome: 'started',
      workflowId: `order:${orderNumber}`,
      orderNumber,
    });
    const { runId } = await client.workflow.getHandle(first.workflowId).describe();

    // The same order, keys in another order and a default written out: still the same order.
    const reordered = Object.fromEntries(Object.entries(order).reverse());
    const again = await orders.submit({
      ...reordered,
      fulfillment: { ...order.fulfillment, sandboxOrder: false },
    });
    expect(again).toEqual({ outcome: 'existing', workflowId: first.workflowId, orderNumber });

    const after = await client.workflow.getHandle(first.workflowId).describe();
    expect(after.runId).toBe(runId);
    expect(after.type).toBe('fulfillOrder');
    expect(after.taskQueue).toBe(taskQueues(prefix).orders);
  });

  it('refuses the same orderNumber with a different body, starting nothing', async () => {
    const orderNumber = newOrderNumber();
    const order = await example('b', orderNumber);
    const { workflowId } = await orders.submit(order);
    started.push(workflowId);
    const { runId } = await client.workflow.getHandle(workflowId).describe();

    const changed = { ...order, products: [{ vid: 'P0001-V1', quantity: 3 }] };
    const conflict = await orders.submit(changed).catch((err: unknown) => err);
    expect(conflict).toBeInstanceOf(OrderConflictError);
    expect(conflict).toMatchObject({ orderNumber, workflowId });
    expect((conflict as Error).message).toMatch(/different input/);

    const after = await client.workflow.getHandle(workflowId).describe();
    expect(after.runId).toBe(runId);
    expect(after.memo?.[INPUT_HASH_MEMO]).not.toBe(inputHash(parseOrderOrThrow(changed)));
  });

  it('refuses an invalid order with issues naming the field, and starts no workflow', async () => {
    const orderNumber = newOrderNumber();
    const { shippingCountryCode: _dropped, ...order } = await example('b', orderNumber);

    const invalid = await orders.submit(order).catch((err: unknown) => err);
    expect(invalid).toBeInstanceOf(OrderInvalidError);
    expect((invalid as OrderInvalidError).issues).toContainEqual({
      field: 'shippingCountryCode',
      rule: 'is required',
    });
    expect((invalid as Error).message).toContain('shippingCountryCode: is required');

    await expect(
      client.workflow.getHandle(orderWorkflowId(orderNumber)).describe(),
    ).rejects.toThrow(WorkflowNotFoundError);
  });

  it('sets the search attributes and the input hash at start, and lists the order by stage', async () => {
    const orderNumber = newOrderNumber();
    const order = await example('c', orderNumber);
    const { workflowId } = await idle.submit(order);
    started.push(workflowId);

    const description = await client.workflow.getHandle(workflowId).describe();
    const sa = description.typedSearchAttributes;
    expect(sa.get(OrderNumber)).toBe(orderNumber);
    expect(sa.get(FulfillmentStage)).toBe('RECEIVED');
    expect(sa.get(FulfillmentFlow)).toBe('C+B');
    expect(sa.get(NeedsAttention)).toBe(false);
    expect(description.memo?.[INPUT_HASH_MEMO]).toBe(inputHash(parseOrderOrThrow(order)));
    // The Temporal UI's Summary names the order and where its stage stands, no personal data.
    expect(await description.staticSummary()).toBe(
      `order ${orderNumber}, flow C+B — stage, reason and what moves it on: first line of Current Details`,
    );
    // No personal data in the search attributes (docs/architecture.md §7).
    const values = JSON.stringify(sa.getAll().map((pair) => pair.value));
    expect(values).not.toContain('Ada Example');
    expect(values).not.toContain('Example Street');

    const received = await eventually(
      `${orderNumber} listed as RECEIVED`,
      () => idle.list({ stage: 'RECEIVED', limit: 1000 }),
      (list) => list.some((o) => o.orderNumber === orderNumber),
      15_000,
    );
    const listed = received.find((o) => o.orderNumber === orderNumber);
    expect(listed).toMatchObject({
      orderNumber,
      workflowId,
      stage: 'RECEIVED',
      flow: 'C+B',
      needsAttention: false,
      executionStatus: 'RUNNING',
    });
    const cancelled = await idle.list({ stage: 'CANCELLED', limit: 1000 });
    expect(cancelled.map((o) => o.orderNumber)).not.toContain(orderNumber);
  });

  it("gives an order that names no margin rule its account's rule from the registry", async () => {
    const shop = `shop-m${randomUUID().slice(0, 6)}`;
    const withRules = new OrderClient(client, taskQueues(`${prefix}-idle`), {
      accounts: staticAccountDirectory([
        { id: shop, tier: 1, apiKey: 'unused', intakeTokenSha256: [], margin: { minPercent: 20 } },
      ]),
      marginDefault: { minUsd: 1 },
    });
    const startedInput = async (workflowId: string): Promise<OrderInput> => {
      started.push(workflowId);
      const history = await client.workflow.getHandle(workflowId).fetchHistory();
      const payload =
        history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
      return defaultPayloadConverter.fromPayload<OrderInput>(payload!);
    };
    const priced = async (extra: Record<string, unknown>): Promise<Order> => {
      const order = await example('b', newOrderNumber());
      const products = order['products'] as Record<string, unknown>[];
      return {
        ...order,
        ...extra,
        products: products.map((p) => ({ ...p, salePrice: 30 })),
      };
    };

    const byAccount = await withRules.submit(await priced({ account: shop }));
    expect(byAccount.workflowId).toBe(orderWorkflowId(byAccount.orderNumber, shop));
    expect((await startedInput(byAccount.workflowId)).fulfillment.margin).toEqual({
      minPercent: 20,
    });

    const own = await priced({ account: shop });
    own.fulfillment = { ...own.fulfillment, margin: { maxLandedCostUsd: 40 } };
    const ownRule = await withRules.submit(own);
    expect((await startedInput(ownRule.workflowId)).fulfillment.margin).toEqual({
      maxLandedCostUsd: 40,
    });

    // The default account has no registry rule here: the deployment's MARGIN_RULE applies.
    const deployment = await withRules.submit(await priced({}));
    expect((await startedInput(deployment.workflowId)).fulfillment.margin).toEqual({ minUsd: 1 });
  });

  it("makes the order's account the fairness key of its workflow tasks, each account taking equal turns", async () => {
    const shop = `shop-p${randomUUID().slice(0, 6)}`;
    const fair = new OrderClient(client, taskQueues(`${prefix}-idle`), {
      accounts: staticAccountDirectory([
        { id: shop, tier: 4, apiKey: 'unused', intakeTokenSha256: [] },
      ]),
    });
    const order = await example('a', newOrderNumber());
    const submitted = await fair.submit({ ...order, account: shop });
    started.push(submitted.workflowId);
    const { priority } = await client.workflow.getHandle(submitted.workflowId).describe();
    // Another account's backlog of new orders is not served first: the server takes turns by key.
    expect(priority).toMatchObject({ fairnessKey: shop, priorityKey: 3 });
    // No weight: the server counts it as 1 (describe may say 0, its unset value).
    expect([undefined, 0, 1]).toContain(priority?.fairnessWeight);
  });

  it('reports an unknown order as not found', async () => {
    await expect(orders.status(newOrderNumber())).rejects.toThrow(OrderNotFoundError);
  });
});

function parseOrderOrThrow(raw: unknown) {
  const parsed = parseOrder(raw);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.input;
}
