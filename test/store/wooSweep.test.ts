/**
 * The order sweep of a WooCommerce site, end to end: the WooCommerce double (REST v3 list with
 * modified_after and pages, webhooks it can lose), a real gateway for the webhooks that arrive,
 * workers on the real dev server supervising the sweep, orders against the real sandbox. The sweep
 * runs on a long interval; each test asks it to sweep now (`storeSweepNow`) and waits for the
 * sweep's own status.
 */
import { describe, expect, it, beforeAll, afterAll } from 'vitest';

import { orderWorkflowId } from '../../src/order/contract.js';
import {
  storeOrderNumber,
  storeSweepId,
  storeSweepNowSignal,
  storeSweepStatusQuery,
  storeWebhookPath,
  SweepWait,
  type StoreSweepStatus,
} from '../../src/store/contract.js';
import { OrderTrigger, type Store, type StoreDirectory } from '../../src/accounts/contract.js';
import { queuePrefix } from '../../src/temporal/taskQueues.js';
import { startWooDouble, type StartedWooDouble } from '../../tools/src/storeDoubles/index.js';
import { eventually } from '../support/eventually.js';
import { madeLater } from '../support/madeLater.js';
import { useOrderHarness } from '../support/orders.js';
import { useTestGateway } from '../gateway/support.js';

const tag = Date.now().toString(36);
const connection = `woo-sweep-${tag}`;
const WEBHOOK_SECRET = 'woo-sweep-webhook-secret';
const STORES = new Map<string, Store>();
const stores: StoreDirectory = {
  store: (id) => STORES.get(id),
  stores: () => [...STORES.values()],
  mappedVid: () => undefined,
};

let started: StartedWooDouble | undefined;
const woo = madeLater(() => started, 'the WooCommerce double');
beforeAll(async () => {
  started = await startWooDouble({
    consumerKey: 'ck_sweep',
    consumerSecret: 'cs_sweep',
    webhookSecret: WEBHOOK_SECRET,
  });
  STORES.set(connection, {
    id: connection,
    account: 'default',
    platform: 'woocommerce',
    apiBaseUrl: `${started.url}/wp-json/wc/v3`,
    siteUrl: started.url,
    orderTrigger: OrderTrigger.Paid,
    notifyCustomer: true,
    // Long: every sweep of these tests is asked for.
    sweepEvery: 'PT1H',
    secrets: { consumerKey: 'ck_sweep', consumerSecret: 'cs_sweep', webhookSecret: WEBHOOK_SECRET },
  });
});
afterAll(async () => {
  await started?.close();
});

const h = useOrderHarness('woo-sweep', 5_000, {
  stores,
  storeSweeps: { superviseEveryMs: 500 },
});
const gateway = useTestGateway(h, { stores });
beforeAll(() => {
  woo.double.webhookUrl = `${gateway.url}${storeWebhookPath(connection)}`;
});

const sweepHandle = () =>
  h.client.workflow.getHandle(storeSweepId(queuePrefix(h.queues), connection));
const orderHandle = (id: number) =>
  h.client.workflow.getHandle(orderWorkflowId(storeOrderNumber(connection, String(id))));

async function sweepStatus(): Promise<StoreSweepStatus | undefined> {
  try {
    return await sweepHandle().query(storeSweepStatusQuery);
  } catch {
    return undefined; // starting, or between runs
  }
}

/** Asks for a sweep now and waits until one concluded after the ask (read every page, or waited). */
async function sweepNow(): Promise<StoreSweepStatus> {
  const before = await eventually(
    'the sweep to conclude its first sweep',
    sweepStatus,
    (s) => s !== undefined && s.sweeps > 0,
  );
  await sweepHandle().signal(storeSweepNowSignal);
  const after = await eventually(
    'a sweep after the ask',
    sweepStatus,
    (s) => s !== undefined && s.sweeps > before!.sweeps,
  );
  return after!;
}

async function runsOf(id: number): Promise<number> {
  let n = 0;
  const workflowId = orderWorkflowId(storeOrderNumber(connection, String(id)));
  for await (const _ of h.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) n += 1;
  return n;
}

const paidOrder = () =>
  woo.double.createOrder({ lines: [{ sku: 'SKU0001-BLACK', quantity: 1, price: '49.00' }] });

describe('the order sweep of a WooCommerce site', () => {
  // The sweep's first sweep (at its start) is over before the tests make orders.
  beforeAll(() => eventually('the first sweep', sweepStatus, (s) => (s?.sweeps ?? 0) > 0));

  it('starts an order whose webhook was lost, once', async () => {
    woo.double.loseWebhooks(1);
    const order = await paidOrder();
    expect(woo.double.lostWebhooks).toBe(1);
    await expect(orderHandle(order.id).describe()).rejects.toThrow();

    const swept = await sweepNow();
    expect(swept.waiting).toBeUndefined();
    expect(swept.last?.started).toBe(1);
    const first = await orderHandle(order.id).describe();

    // The next sweep lists it again (the overlap) and starts nothing.
    const again = await sweepNow();
    expect(again.last?.started).toBe(0);
    expect((await orderHandle(order.id).describe()).runId).toBe(first.runId);
    await eventually(
      'visibility of the order',
      () => runsOf(order.id),
      (n) => n >= 1,
    );
    expect(await runsOf(order.id)).toBe(1);
  });

  it('does not start again an order whose webhook came', async () => {
    const order = await paidOrder();
    expect(woo.double.sent.at(-1)?.status).toBe(200);
    const first = await orderHandle(order.id).describe();

    const swept = await sweepNow();
    expect(swept.last?.started).toBe(0);
    expect(swept.last?.existing).toBeGreaterThanOrEqual(1);
    expect((await orderHandle(order.id).describe()).runId).toBe(first.runId);
  });

  it("waits out the site's 429 (Retry-After) and goes on", async () => {
    woo.double.loseWebhooks(1);
    const order = await paidOrder();
    woo.double.fail(1, 429);
    const limitedBefore = woo.double.stats.requests;

    const swept = await sweepNow();
    expect(swept.waiting).toBeUndefined();
    expect(swept.last?.requests).toBe(2);
    expect(swept.last?.started).toBe(1);
    expect(woo.double.stats.requests - limitedBefore).toBeGreaterThanOrEqual(2);
    await orderHandle(order.id).describe();
  });

  it('waits, named, while the site refuses the key, and goes on once it is mended', async () => {
    woo.double.revokeKey();
    woo.double.loseWebhooks(1);
    const order = await paidOrder();

    const refused = await sweepNow();
    expect(refused.waiting?.reason).toBe(SweepWait.Refused);
    expect(refused.waiting?.message).toMatch(/refused the consumer key/);
    await expect(orderHandle(order.id).describe()).rejects.toThrow();

    woo.double.restoreKey();
    const mended = await sweepNow();
    expect(mended.waiting).toBeUndefined();
    expect(mended.last?.started).toBe(1);
    await orderHandle(order.id).describe();
  });

  it('comes back after an operator terminated it, from where it was', async () => {
    const before = (await sweepStatus())!;
    const old = await sweepHandle().describe();
    await sweepHandle().terminate('an operator tries the supervisor');

    const back = await eventually(
      'the supervisor to start the sweep again',
      async () => (await sweepHandle().describe()).runId,
      (runId) => runId !== old.runId,
    );
    expect(back).not.toBe(old.runId);
    const status = await eventually('the new run to answer', sweepStatus, (s) => s !== undefined);
    expect(status!.cursor).toBe(before.cursor);

    woo.double.loseWebhooks(1);
    const order = await paidOrder();
    const swept = await sweepNow();
    expect(swept.last?.started).toBe(1);
    await orderHandle(order.id).describe();
  });

  it('ends once its connection is removed', async () => {
    STORES.delete(connection);
    await sweepHandle().signal(storeSweepNowSignal);
    const ended = await eventually(
      'the sweep to end',
      async () => (await sweepHandle().describe()).status.name,
      (s) => s !== 'RUNNING',
    );
    expect(ended).toBe('COMPLETED');
  });
});
