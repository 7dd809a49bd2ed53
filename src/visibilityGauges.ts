/**
 * What an operator alerts on, counted from visibility every minute while the workers run: the
 * orders per stage and those waiting for a person (order/gauges.ts), the store-events backlog
 * (storeEvents/backlogGauge.ts), the account's token health (session/gauges.ts) and the supplier
 * webhooks' gap (tracking/gapGauge.ts). Every worker process of the account reports the same
 * numbers.
 */
import type { Client } from '@temporalio/client';
import type { MetricMeter } from '@temporalio/common';

import { orderGaugesProbe } from './order/gauges.js';
import { sessionGaugesProbe } from './session/gauges.js';
import { storeEventsBacklogProbe } from './storeEvents/backlogGauge.js';
import type { Logger } from './telemetry/log.js';
import { runtimeMetricMeter } from './telemetry/runtimeMeter.js';
import { startVisibilityPoller, type VisibilityPoller } from './temporal/visibilityPoller.js';
import { webhookGapProbe } from './tracking/gapGauge.js';

export interface VisibilityGaugeOptions {
  /** Between two counts (default 60 s): each tick is a few visibility requests. */
  everyMs?: number;
  /** Default: the SDK runtime's meter (what `/metrics` serves), or none without a runtime. */
  meter?: MetricMeter;
  log: Pick<Logger, 'debug'>;
}

/** The account's visibility gauges, counted now and then every `everyMs` until `stop()`. */
export function startVisibilityGauges(
  client: Client,
  ordersQueue: string,
  options: VisibilityGaugeOptions,
): VisibilityPoller {
  const meter = options.meter ?? runtimeMetricMeter();
  return startVisibilityPoller(
    client,
    [
      orderGaugesProbe(ordersQueue, meter),
      storeEventsBacklogProbe(ordersQueue, meter),
      sessionGaugesProbe(client, ordersQueue, meter),
      webhookGapProbe(client, ordersQueue, meter),
    ],
    {
      ...(options.everyMs !== undefined && { everyMs: options.everyMs }),
      log: options.log,
      context: { ordersQueue },
    },
  );
}
