/**
 * Forwarding product, variant and stock webhook events upstream (CATALOGUE_EVENTS_URL), for the
 * `catalogueEvents` workflow: one POST per batch, `{"events": [WebhookEvent, …]}` as JSON. Any
 * 2xx is success; anything else (or no answer in time) fails the attempt, and the activity's retry
 * policy and the workflow keep trying — events are never dropped for a failing upstream. The
 * receiver deduplicates by each event's `messageId` (a retried batch is sent again as it was).
 */
import { ApplicationFailure } from '@temporalio/common';
import { request } from 'undici';

import type { WebhookEvent } from './contract.js';

export interface CatalogueForwardingOptions {
  /** Where to POST; without one, events are only kept in the workflow's recent list. */
  url?: string;
  /** Per request (default 10 s). */
  timeoutMs?: number;
}

export interface ForwardResult {
  /** False when no upstream address is configured on this worker. */
  forwarded: boolean;
}

export const CATALOGUE_FORWARD_FAILED = 'CatalogueForwardFailed';

export function catalogueForwardingActivities(opts: CatalogueForwardingOptions = {}) {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  return {
    async forwardCatalogueEvents(events: WebhookEvent[]): Promise<ForwardResult> {
      if (opts.url === undefined || opts.url === '') return { forwarded: false };
      let status: number;
      try {
        const res = await request(opts.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'dropflow-gateway' },
          body: JSON.stringify({ events }),
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          signal: AbortSignal.timeout(timeoutMs),
        });
        status = res.statusCode;
        await res.body.dump();
      } catch (err) {
        throw ApplicationFailure.create({
          type: CATALOGUE_FORWARD_FAILED,
          message: `upstream ${new URL(opts.url).host} not reached: ${(err as Error).message}`,
        });
      }
      if (status < 200 || status >= 300) {
        throw ApplicationFailure.create({
          type: CATALOGUE_FORWARD_FAILED,
          message: `upstream ${new URL(opts.url).host} answered HTTP ${status}`,
        });
      }
      return { forwarded: true };
    },
  };
}

export type CatalogueForwardingActivities = ReturnType<typeof catalogueForwardingActivities>;
