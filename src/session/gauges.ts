/**
 * The account's token health as gauges, read from its session's `session` query at each tick of
 * the visibility gauges: `dropflow_supplier_key_refused{task_queue}` (1 while the supplier refuses
 * the API key) and `dropflow_supplier_no_token_seconds{task_queue}` (how long the account has had
 * no usable token). Every worker process of the account reports the same numbers. A session that
 * does not exist yet (no process asked for a token) counts as healthy.
 */
import type { Client } from '@temporalio/client';
import type { MetricMeter } from '@temporalio/common';

import { sessionQuery, supplierSessionId } from './contract.js';
import { gaugeOf, METRICS } from '../telemetry/metrics.js';
import { queuePrefix, queuesOf } from '../temporal/taskQueues.js';
import type { VisibilityProbe } from '../temporal/visibilityPoller.js';
import { probeQuery } from '../temporal/probeQuery.js';

export function sessionGaugesProbe(
  client: Client,
  ordersQueue: string,
  meter: MetricMeter,
  now: () => number = Date.now,
): VisibilityProbe {
  const tags = { task_queue: ordersQueue };
  const keyRefused = gaugeOf(meter, METRICS.supplierKeyRefused).withTags(tags);
  const noTokenSeconds = gaugeOf(meter, METRICS.supplierNoTokenSeconds).withTags(tags);
  const sessionId = supplierSessionId(queuePrefix(queuesOf(ordersQueue)));
  return {
    name: 'session gauges',
    async run(_count, stopped) {
      const view = await probeQuery(client, sessionId, sessionQuery, stopped);
      keyRefused.set(view?.keyRefusedSince === undefined ? 0 : 1);
      const since = view?.noTokenSince === undefined ? undefined : Date.parse(view.noTokenSince);
      noTokenSeconds.set(since === undefined ? 0 : Math.max(0, Math.round((now() - since) / 1000)));
    },
  };
}
