/**
 * A backlog: 300 flow-B orders submitted at once to one account at its tier's rate. Every order
 * is created once and paid, in batches, with no activity timed out and nobody asked to help.
 * It runs alone, after the other slow files (docs/testing.md): beside them, a starved worker
 * process times activities out that a machine of its own does not.
 */
import { describe, expect, it } from 'vitest';
import { ORDER_WORKFLOW, Stage } from '../../src/order/contract.js';
import { eventually } from '../support/eventually.js';
import { startOrder, validOrder, useOrderHarness } from '../support/orders.js';
import { accountStats } from '../support/sandbox.js';
import { orderNumber, usOrder } from '../supplier/orderHelpers.js';

const ORDERS = 300;
const RATE = 6;

const h = useOrderHarness('volume', 1_000_000, { ratePerSecond: RATE });

async function inBatches<T>(items: T[], size: number, run: (item: T) => Promise<unknown>) {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(run));
}

describe('a backlog of orders', () => {
  it(`${ORDERS} orders at once: each created once and paid, no timeout, no NEEDS_ATTENTION`, async () => {
    const inputs = Array.from({ length: ORDERS }, (_, i) =>
      validOrder({
        ...usOrder({ orderNumber: orderNumber(`vol${i}`) }),
        fulfillment: { flow: 'B' },
      }),
    );
    const ids: string[] = [];
    await inBatches(inputs, 25, async (input) => ids.push((await startOrder(h, input)).workflowId));

    const mine = `WorkflowType = '${ORDER_WORKFLOW}' AND TaskQueue = '${h.queues.orders}'`;
    await eventually(
      `${ORDERS} orders paid`,
      async () =>
        (
          await h.client.workflow.count(
            `${mine} AND FulfillmentStage IN ('${Stage.PAID}', '${Stage.AWAITING_SHIPMENT}')`,
          )
        ).count,
      (n) => n === ORDERS,
      480_000,
      1_000,
    );
    expect((await h.client.workflow.count(`${mine} AND NeedsAttention = true`)).count).toBe(0);

    // Refused (rate-limited) calls count in `calls`; what the supplier did is what counts here.
    const stats = await accountStats(h.account.openId);
    expect(stats.ordersCreated).toBe(ORDERS);
    expect(stats.duplicateCreatesRefused).toBe(0);
    expect(stats.repeatedPaymentsRefused).toBe(0);
    expect(stats.payments).toBeGreaterThan(0);
    expect(stats.payments).toBeLessThan(ORDERS / 5);

    const timedOut: string[] = [];
    await inBatches(ids, 20, async (id) => {
      const events = (await h.client.workflow.getHandle(id).fetchHistory()).events ?? [];
      for (const e of events) {
        const timeout = e.activityTaskTimedOutEventAttributes;
        if (timeout == null) continue;
        const scheduled = events.find(
          (s) => Number(s.eventId) === Number(timeout.scheduledEventId),
        );
        const type = scheduled?.activityTaskScheduledEventAttributes?.activityType?.name;
        timedOut.push(`${id}: ${type} (${timeout.failure?.message})`);
      }
    });
    expect(timedOut).toEqual([]);
  }, 600_000);
});
