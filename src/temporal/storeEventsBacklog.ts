/**
 * The store-events backlog as a metric: how many open order and dispute workflows of an account
 * hold store events that wait after a failed delivery attempt (search attribute
 * StoreEventsBehind), counted from visibility every minute and exported as the gauge
 * `dropflow_store_events_behind{task_queue}` through the SDK runtime's metrics (Prometheus when
 * the worker serves /metrics). Every worker process of the account reports the same count.
 */
import type { Client } from '@temporalio/client';
import type { MetricGauge, MetricMeter } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';

import type { Logger } from '../log.js';
import { StoreEventsBehind } from './searchAttributes.js';
import { literal } from './visibility.js';

export const STORE_EVENTS_BEHIND_GAUGE = 'dropflow_store_events_behind';

const COUNT_TIMEOUT_MS = 10_000;

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

/** Counts now and then every `everyMs` until `stop()`; a failed count waits for the next tick. */
export function startStoreEventsBacklog(
  client: Client,
  ordersQueue: string,
  options: BacklogOptions,
): StoreEventsBacklog {
  const everyMs = options.everyMs ?? 60_000;
  const meter = options.meter ?? Runtime.instance().metricMeter;
  const gauge: MetricGauge = meter
    .createGauge(
      STORE_EVENTS_BEHIND_GAUGE,
      'int',
      undefined,
      'open order and dispute workflows whose store events wait after a failed delivery attempt',
    )
    .withTags({ task_queue: ordersQueue });
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let counting: Promise<void> = Promise.resolve();

  const tick = (): void => {
    // A count that hangs (Temporal unreachable) neither holds up the next tick nor shutdown.
    const signal = AbortSignal.any([stopping.signal, AbortSignal.timeout(COUNT_TIMEOUT_MS)]);
    counting = client
      .withAbortSignal(signal, () => countBehind(client, ordersQueue))
      .then(
        (n) => {
          if (!stopping.signal.aborted) gauge.set(n);
        },
        (err: unknown) => {
          if (stopping.signal.aborted) return;
          options.log.debug({ err, ordersQueue }, 'store events backlog: count failed');
        },
      );
    void counting.then(() => {
      if (!stopping.signal.aborted) timer = setTimeout(tick, everyMs);
    });
  };
  tick();

  return {
    async stop() {
      stopping.abort();
      clearTimeout(timer);
      await counting;
    },
  };
}
