/**
 * The store-events backlog as a metric: how many open order and dispute workflows of an account
 * hold store events that wait after a failed delivery attempt (search attribute
 * StoreEventsBehind), counted from visibility every minute and exported as the gauge
 * `dropflow_store_events_behind{task_queue}` through the SDK runtime's metrics (Prometheus when
 * the worker serves /metrics). Every worker process of the account reports the same count.
 */
import type { Client } from '@temporalio/client';
import type { MetricMeter } from '@temporalio/common';

import type { Logger } from '../telemetry/log.js';
import { gaugeOf, METRICS } from '../telemetry/metrics.js';
import { runtimeMetricMeter } from '../telemetry/runtimeMeter.js';
import { StoreEventsBehind } from '../temporal/searchAttributes.js';
import { literal } from '../temporal/visibility.js';
import { startVisibilityPoller, type VisibilityProbe } from '../temporal/visibilityPoller.js';

/** Open workflows of the orders queue whose store events wait after a failed attempt. */
export function behindQuery(ordersQueue: string): string {
  return `${StoreEventsBehind.name} = true AND ExecutionStatus = 'Running' AND TaskQueue = ${literal(ordersQueue)}`;
}

export async function countBehind(client: Client, ordersQueue: string): Promise<number> {
  const { count } = await client.workflow.count(behindQuery(ordersQueue));
  return count;
}

export interface BacklogOptions {
  /** Between two counts (default 60 s): each count is one visibility request. */
  everyMs?: number;
  /** Default: the SDK runtime's meter (what `dropflow worker --metrics-port` exports). */
  meter?: MetricMeter;
  log: Pick<Logger, 'debug'>;
}

export interface StoreEventsBacklog {
  /** Stops counting; a count under way is abandoned, and resolves once it has given up. */
  stop(): Promise<void>;
}

/** The backlog's gauge, counted at each tick of a visibility poller. */
export function storeEventsBacklogProbe(ordersQueue: string, meter: MetricMeter): VisibilityProbe {
  const gauge = gaugeOf(meter, METRICS.storeEventsBehind).withTags({ task_queue: ordersQueue });
  return {
    name: 'store events backlog',
    async run(count) {
      gauge.set((await count(behindQuery(ordersQueue))).count);
    },
  };
}

/**
 * Counts now and then every `everyMs` until `stop()`; a failed count waits for the next tick. The
 * workers count it with the other visibility gauges (src/visibilityGauges.ts).
 */
export function startStoreEventsBacklog(
  client: Client,
  ordersQueue: string,
  options: BacklogOptions,
): StoreEventsBacklog {
  const meter = options.meter ?? runtimeMetricMeter();
  return startVisibilityPoller(client, [storeEventsBacklogProbe(ordersQueue, meter)], {
    ...(options.everyMs !== undefined && { everyMs: options.everyMs }),
    log: options.log,
    context: { ordersQueue },
  });
}
