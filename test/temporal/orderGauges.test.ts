/**
 * The order gauges: running order workflows of one orders queue per stage and those needing a
 * person, counted from visibility and exported through the runtime's Prometheus metrics — not
 * closed ones, not another queue's, every stage present, a stage emptied back at 0. Where the
 * server will not group by stage (Temporal's SQL visibility, 1.29 to 1.32), each stage is counted
 * on its own, and the grouped count is not tried again.
 */
import { Client, Connection, type CountWorkflowExecution } from '@temporalio/client';
import { noopMetricMeter } from '@temporalio/common';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';

import { ORDER_WORKFLOW, Stage } from '../../src/order/contract.js';
import { METRICS } from '../../src/telemetry/metrics.js';
import {
  countOrdersByStage,
  orderGaugesProbe,
  runningOrdersQuery,
} from '../../src/order/gauges.js';
import { startVisibilityGauges } from '../../src/visibilityGauges.js';
import { FulfillmentStage, NeedsAttention } from '../../src/temporal/searchAttributes.js';
import type { Count } from '../../src/temporal/visibilityPoller.js';
import { eventually } from '../support/eventually.js';
import { installMetricsRuntime, samplesOf, scrape } from '../support/metrics.js';

const metricsUrl = installMetricsRuntime();

const run = `${process.pid}-${Date.now().toString(36)}`;
const queue = `gauges-${run}/orders`;
const otherQueue = `gauges-other-${run}/orders`;
let connection: Connection;
let client: Client;

beforeAll(async () => {
  connection = await Connection.connect({ address: inject('temporalAddress') });
  client = new Client({ connection, namespace: inject('temporalNamespace') });
});
afterAll(() => connection.close());

/** An order workflow nobody runs: it stays open with the search attributes it started with. */
function openOrder(taskQueue: string, stage: Stage, needsPerson: boolean, tag: string) {
  return client.workflow.start(ORDER_WORKFLOW, {
    workflowId: `gauges-${tag}-${run}`,
    taskQueue,
    typedSearchAttributes: [
      { key: FulfillmentStage, value: stage },
      { key: NeedsAttention, value: needsPerson },
    ],
  });
}

/** The queue's gauges as scraped: orders by stage, and those needing a person. */
async function gauges(): Promise<{ byStage: Record<string, number>; needingPerson?: number }> {
  const samples = await scrape(await metricsUrl);
  const byStage: Record<string, number> = {};
  for (const s of samplesOf(samples, METRICS.orders.name, { task_queue: queue })) {
    byStage[s.labels['stage'] ?? '(none)'] = s.value;
  }
  const [needing] = samplesOf(samples, METRICS.ordersNeedingPerson.name, { task_queue: queue });
  return { byStage, ...(needing !== undefined && { needingPerson: needing.value }) };
}

it('exports the running orders of its queue per stage and those needing a person', async () => {
  const paid = await openOrder(queue, Stage.PAID, false, 'paid-1');
  await openOrder(queue, Stage.PAID, false, 'paid-2');
  const waiting = await openOrder(queue, Stage.AWAITING_FUNDS, true, 'funds');
  const closed = await openOrder(queue, Stage.SHIPPED, false, 'closed');
  await closed.terminate('closed orders do not count');
  const elsewhere = await openOrder(otherQueue, Stage.PAID, true, 'elsewhere');
  await eventually(
    'visibility to list the orders',
    async () => (await client.workflow.count(runningOrdersQuery(queue))).count,
    (n) => n === 3,
  );

  const poller = startVisibilityGauges(client, queue, { everyMs: 200, log: { debug: () => {} } });
  try {
    const first = await eventually(
      'the gauges of the three orders',
      gauges,
      (g) => g.byStage['PAID'] === 2 && g.needingPerson === 1,
    );
    // Every stage is there, the empty ones at 0.
    expect(Object.keys(first.byStage).sort()).toEqual(Object.values(Stage).sort());
    expect(first.byStage).toMatchObject({ AWAITING_FUNDS: 1, SHIPPED: 0, CREATED: 0 });

    await paid.terminate('cancelled, say');
    await waiting.terminate('cancelled, say');
    const later = await eventually(
      'the gauges after two orders ended',
      gauges,
      (g) => g.byStage['PAID'] === 1 && g.needingPerson === 0,
    );
    // Set back to 0, not left at the last count.
    expect(later.byStage['AWAITING_FUNDS']).toBe(0);
  } finally {
    await poller.stop();
    await elsewhere.terminate('test over');
    await client.workflow.getHandle(`gauges-paid-2-${run}`).terminate('test over');
  }
});

/** A count that answers grouped counts from `groups`, or refuses them as the SQL servers do. */
function fakeCount(grouped: 'answer' | 'refuse', perStage: Record<string, number> = {}) {
  const queries: string[] = [];
  const count: Count = (query) => {
    queries.push(query);
    if (query.includes('GROUP BY')) {
      if (grouped === 'refuse') {
        const refusal = Object.assign(new Error('invalid query'), { code: 3 });
        return Promise.reject(new Error('Failed to count workflows', { cause: refusal }));
      }
      const groups = Object.entries(perStage).map(([stage, n]) => ({
        count: n,
        // As the SDK decodes them: each value a list.
        groupValues: [[stage]],
      }));
      const total = groups.reduce((sum, g) => sum + g.count, 0);
      return Promise.resolve<CountWorkflowExecution>({ count: total, groups });
    }
    const stage = /FulfillmentStage = '([A-Z_]+)'/.exec(query)?.[1];
    const n = stage === undefined ? 0 : (perStage[stage] ?? 0);
    return Promise.resolve({ count: n, groups: [] });
  };
  return { count, queries };
}

it('reads one grouped count where the server groups by stage', async () => {
  const { count, queries } = fakeCount('answer', { PAID: 4, SHIPPED: 1 });
  const { byStage, counting } = await countOrdersByStage(count, queue);
  expect(counting).toBe('grouped');
  expect(queries).toEqual([`${runningOrdersQuery(queue)} GROUP BY FulfillmentStage`]);
  expect(byStage.get('PAID')).toBe(4);
  expect(byStage.get('SHIPPED')).toBe(1);
  expect(byStage.get('CANCELLED')).toBe(0);
});

it('counts each stage where the server refuses to group, and does not ask again', async () => {
  const { count, queries } = fakeCount('refuse', { PAID: 2 });
  const probe = orderGaugesProbe(queue, noopMetricMeter);
  await probe.run(count, new AbortController().signal);
  const stages = Object.values(Stage).length;
  // The grouped try, one count per stage, and the orders needing a person.
  expect(queries).toHaveLength(1 + stages + 1);
  queries.length = 0;
  await probe.run(count, new AbortController().signal);
  expect(queries.filter((q) => q.includes('GROUP BY'))).toEqual([]);
  expect(queries).toHaveLength(stages + 1);
});

it('lets other failures of the grouped count through (the next tick tries again)', async () => {
  const failing: Count = () => Promise.reject(new Error('visibility unavailable'));
  await expect(countOrdersByStage(failing, queue)).rejects.toThrow('visibility unavailable');
});
