/**
 * The orders' gauges, counted from visibility with the other areas' (src/visibilityGauges.ts): the
 * running orders of the account's orders queue per stage (`dropflow_orders{task_queue, stage}`)
 * and those waiting for a person (`dropflow_orders_needing_person{task_queue}`).
 */
import type { MetricMeter } from '@temporalio/common';

import { ORDER_WORKFLOW, Stage } from './contract.js';
import { gaugeOf, METRICS } from '../telemetry/metrics.js';
import { FulfillmentStage, NeedsAttention } from '../temporal/searchAttributes.js';
import { literal } from '../temporal/visibility.js';
import type { Count, VisibilityProbe } from '../temporal/visibilityPoller.js';

const STAGES: readonly string[] = Object.values(Stage);

export function runningOrdersQuery(ordersQueue: string): string {
  return `WorkflowType = ${literal(ORDER_WORKFLOW)} AND ExecutionStatus = 'Running' AND TaskQueue = ${literal(ordersQueue)}`;
}

export function needingPersonQuery(ordersQueue: string): string {
  return `${runningOrdersQuery(ordersQueue)} AND ${NeedsAttention.name} = true`;
}

/** How the server counts per stage: one grouped count, or (where it refuses one) one per stage. */
export type StageCounting = 'grouped' | 'per-stage';

/**
 * Running orders per stage, every stage of `Stage` included (0 when none). Servers that only group
 * by ExecutionStatus (Temporal's SQL visibility, 1.29 to 1.32) refuse the grouped count with
 * INVALID_ARGUMENT: then each stage is counted on its own.
 */
export async function countOrdersByStage(
  count: Count,
  ordersQueue: string,
  counting: StageCounting = 'grouped',
): Promise<{ byStage: Map<string, number>; counting: StageCounting }> {
  const byStage = new Map(STAGES.map((stage) => [stage, 0]));
  const running = runningOrdersQuery(ordersQueue);
  if (counting === 'grouped') {
    try {
      const { groups } = await count(`${running} GROUP BY ${FulfillmentStage.name}`);
      for (const { count: n, groupValues } of groups) {
        // The SDK hands each group value over as a list: ['PAID'].
        const stage = groupValues[0]?.[0];
        // Orders that have written no stage yet form a group of their own: not a stage.
        if (typeof stage === 'string') byStage.set(stage, (byStage.get(stage) ?? 0) + n);
      }
      return { byStage, counting };
    } catch (err) {
      if (!refusedAsInvalid(err)) throw err;
    }
  }
  for (const stage of STAGES) {
    const { count: n } = await count(`${running} AND ${FulfillmentStage.name} = ${literal(stage)}`);
    byStage.set(stage, n);
  }
  return { byStage, counting: 'per-stage' };
}

/** A gRPC INVALID_ARGUMENT (3): the server does not take the query. */
function refusedAsInvalid(err: unknown): boolean {
  const cause = err instanceof Error ? err.cause : undefined;
  return typeof cause === 'object' && cause !== null && 'code' in cause && cause.code === 3;
}

export function orderGaugesProbe(ordersQueue: string, meter: MetricMeter): VisibilityProbe {
  const tags = { task_queue: ordersQueue };
  const orders = gaugeOf(meter, METRICS.orders).withTags(tags);
  const needingPerson = gaugeOf(meter, METRICS.ordersNeedingPerson).withTags(tags);
  let counting: StageCounting = 'grouped';
  // Stages an older or newer code wrote: once reported, set at every tick (to 0 when gone).
  const reported = new Set<string>(STAGES);
  return {
    name: 'order gauges',
    async run(count) {
      const counted = await countOrdersByStage(count, ordersQueue, counting);
      counting = counted.counting;
      const waiting = await count(needingPersonQuery(ordersQueue));
      for (const stage of counted.byStage.keys()) reported.add(stage);
      for (const stage of reported) orders.set(counted.byStage.get(stage) ?? 0, { stage });
      needingPerson.set(waiting.count);
    },
  };
}
