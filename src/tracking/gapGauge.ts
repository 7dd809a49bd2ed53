/**
 * `dropflow_webhook_gap_seconds{task_queue}`: how long the account's news has reached orders only
 * through sweeps, read from its tracking sweeper's `sweeperStatus` at each tick of the visibility
 * gauges (docs/webhook-health.md). A sweeper that does not run, or runs without webhook health
 * yet, reports 0.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { MetricMeter } from '@temporalio/common';

import { gaugeOf, METRICS } from '../metrics.js';
import { queuePrefix, queuesOf } from '../temporal/taskQueues.js';
import type { VisibilityProbe } from '../temporal/visibilityPoller.js';
import { sweeperStatusQuery, trackingSweeperId, type SweeperStatus } from './contract.js';

/** A query that hangs (no worker of the account running) gives up after this long. */
const QUERY_TIMEOUT_MS = 10_000;

export function webhookGapProbe(
  client: Client,
  ordersQueue: string,
  meter: MetricMeter,
): VisibilityProbe {
  const gap = gaugeOf(meter, METRICS.webhookGapSeconds).withTags({ task_queue: ordersQueue });
  const sweeperId = trackingSweeperId(queuePrefix(queuesOf(ordersQueue)));
  return {
    name: 'webhook gap gauge',
    async run() {
      const status = await client
        .withAbortSignal(AbortSignal.timeout(QUERY_TIMEOUT_MS), () =>
          client.workflow.getHandle(sweeperId).query(sweeperStatusQuery),
        )
        .catch((err: unknown): SweeperStatus | undefined => {
          if (err instanceof WorkflowNotFoundError) return undefined;
          throw err;
        });
      gap.set(status?.webhooks?.gapSeconds ?? 0);
    },
  };
}
