/** What `dropflow dev` prints once everything is up: where each part is, and what to try. */
import { resolve } from 'node:path';

import type { Config } from '../config/environment.js';
import type { TaskQueues } from '../temporal/taskQueues.js';
import { DEV_STATE_FILE } from './devState.js';
import { shownSupplierUrl } from './devSupplier.js';

export interface DevView {
  config: Config;
  dataDir: string;
  temporal: { address: string; namespace: string; uiUrl?: string | undefined };
  encryption: { codec: { keyId: string }; keySource: string };
  /** The codec URL given to the UI; undefined with gateway port 0. */
  codecEndpoint: string | undefined;
  gateway: { url: string; codecUrl?: string | undefined };
  intakeToken: string;
  /** Undefined: no sandbox (SUPPLIER_BASE_URL). */
  sandboxUrl: string | undefined;
  supplierUrl: string;
  queues: TaskQueues;
  sweeperId: string;
  trackingEvery: number;
  metricsPort: number;
  /** What the webhook registration did. */
  webhooks: string;
  storeEventsUrl: string | undefined;
  store: { line: string; tryIt: string[] };
}

export function devBanner(v: DevView): string {
  const { config } = v;
  const findsIt =
    resolve(config.DROPFLOW_DATA_DIR) === v.dataDir
      ? 'npx dropflow … in this directory'
      : `npx dropflow … with DROPFLOW_DATA_DIR=${v.dataDir}`;
  return [
    '',
    'dropflow dev is running:',
    `  Temporal        ${v.temporal.address} (namespace ${v.temporal.namespace})`,
    `  Temporal UI     ${v.temporal.uiUrl ?? '-'}`,
    `  Encryption      payloads encrypted with key id ${v.encryption.codec.keyId} (${v.encryption.keySource})`,
    `  Codec server    ${v.gateway.codecUrl ?? '-'}${v.codecEndpoint === undefined ? '  (not given to the UI: gateway port 0)' : '  (the UI decodes through it)'}`,
    ...(v.sandboxUrl === undefined
      ? [`  Supplier        ${shownSupplierUrl(v.supplierUrl)}  (SUPPLIER_BASE_URL; no sandbox)`]
      : [
          `  Sandbox API     ${v.sandboxUrl}/api2.0/v1/  (API key: ${config.SANDBOX_API_KEY === 'sandbox' ? 'sandbox' : 'from SANDBOX_API_KEY'})`,
          `  Sandbox stats   ${v.sandboxUrl}/__sandbox/stats`,
        ]),
    `  Workers         ${v.queues.orders}, ${v.queues.supplier} (draining ${v.queues.retiredBatch})`,
    `  Tracking sweep  workflow ${v.sweeperId}, every ${v.trackingEvery} s (flags orders unchanged ${config.TRACKING_STALE_AFTER_HOURS} h or unlisted ${config.TRACKING_MISSING_AFTER_MINUTES} min)`,
    `  Metrics         ${v.metricsPort === 0 ? 'off (metrics port 0)' : `http://127.0.0.1:${v.metricsPort}/metrics  (workers and gateway)`}`,
    `  Gateway         ${v.gateway.url}  (intake token: ${config.GATEWAY_TOKEN === undefined ? v.intakeToken : 'from GATEWAY_TOKEN'})`,
    `  Webhooks        ${v.webhooks}`,
    `  Store events    ${v.storeEventsUrl === undefined ? 'off (no STORE_EVENTS_URL)' : `signed, to ${new URL(v.storeEventsUrl).host}`}`,
    `  Store           ${v.store.line}`,
    `  State           ${v.dataDir}  (this dev's addresses in ${DEV_STATE_FILE} while it runs)`,
    '',
    `Try an order (in another terminal; ${findsIt} finds this dev's Temporal by itself):`,
    '  npx dropflow submit examples/order-flow-b.json',
    '  npx dropflow status EXAMPLE-B-0001',
    '  npx dropflow list',
    `  curl -H 'authorization: Bearer <intake token>' ${v.gateway.url}/v1/orders/EXAMPLE-B-0001`,
    '',
    ...(v.store.tryIt.length === 0 ? [] : [...v.store.tryIt, '']),
    'Ctrl-C stops everything.',
    '',
  ].join('\n');
}
