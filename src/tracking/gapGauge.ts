/**
 * `dropflow_webhook_gap_seconds{task_queue}`: how long the account's news has reached orders only
 * through sweeps, read from its tracking sweeper's `sweeperStatus` at each tick of the visibility
 * gauges (docs/webhook-health.md). A sweeper that does not run, or runs without webhook health
 * yet, reports 0.
 */
import type { Client } from '@temporalio/client';
import type { MetricMeter } from '@temporalio/common';

import { gaugeOf, METRICS } from '../telemetry/metrics.js';
import { queuePrefix, queuesOf } from '../temporal/taskQueues.js';
import type { VisibilityProbe } from '../temporal/visibilityPoller.js';
import { probeQuery } from '../temporal/probeQuery.js';
import { sweeperStatusQuery, trackingSweeperId } from './contract.js';

export function webhookGapProbe(
  client: Client,
  ordersQueue: string,
  meter: MetricMeter,
): VisibilityProbe {
  const gap = gaugeOf(meter, METRICS.webhookGapSeconds).withTags({ task_queue: ordersQueue });
  const sweeperId = trackingSweeperId(queuePrefix(queuesOf(ordersQueue)));
  return {
    name: 'webhook gap gauge',
    async run(_count, stopped) {
      const status = await probeQuery(client, sweeperId, sweeperStatusQuery, stopped);
      gap.set(status?.webhooks?.gapSeconds ?? 0);
    },
  };
}
