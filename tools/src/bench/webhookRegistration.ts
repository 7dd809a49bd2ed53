/**
 * The phase's gateway as its account's callback for every topic, as `dropflow dev` does, with the
 * token of the account's session (the workers' own): the supplier hands out few tokens.
 */
import type { Client } from '@temporalio/client';

import { waitFor } from '../localStack/wait.js';
import { callbackUrlFor, enableWebhooks } from 'dropflow/gateway';
import { SupplierClient } from 'dropflow/supplier';
import { SessionTokenSource } from 'dropflow/session';
import type { TaskQueues } from 'dropflow/temporal';

/** The session's first token may wait for the worker's start and the supplier's token pace. */
const REGISTRATION_TIMEOUT_MS = 90_000;
const RETRY_EVERY_MS = 1_000;

export async function registerGateway(o: {
  client: Client;
  queues: TaskQueues;
  baseUrl: string;
  apiKey: string;
  gatewayUrl: string;
}): Promise<void> {
  const supplier = new SupplierClient({
    baseUrl: o.baseUrl,
    apiKey: o.apiKey,
    tokens: new SessionTokenSource(o.client, o.queues),
  });
  try {
    const callback = callbackUrlFor(o.gatewayUrl, { allowLocal: true });
    await waitFor('the webhook registration', () => enableWebhooks(supplier, callback), {
      timeoutMs: REGISTRATION_TIMEOUT_MS,
      everyMs: RETRY_EVERY_MS,
    });
  } finally {
    await supplier.close();
  }
}
