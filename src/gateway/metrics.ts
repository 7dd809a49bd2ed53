/**
 * The gateway's metrics: every response by route pattern and status, and what became of each
 * supplier webhook request. Exported by the process's SDK runtime (`dropflow gateway
 * --metrics-port`, or the one endpoint of `dropflow dev`).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

import { counterOf, METRICS } from '../telemetry/metrics.js';
import { lazyInstruments } from '../telemetry/runtimeMeter.js';
import type { HandoffOutcome } from './handoff.js';

const instruments = lazyInstruments((meter) => ({
  responses: counterOf(meter, METRICS.gatewayResponses),
  webhookEvents: counterOf(meter, METRICS.webhookEvents),
}));

/** The route label of requests no route matched: their URLs would make a label per request. */
export const UNMATCHED_ROUTE = 'unmatched';

export function countResponse(req: FastifyRequest, reply: FastifyReply): void {
  instruments().responses.add(1, {
    route: req.routeOptions.url ?? UNMATCHED_ROUTE,
    status: String(reply.statusCode),
  });
}

/**
 * - received: every webhook request, counted as it arrives; then one of
 * - rejected: bad or missing signature, a body that is not JSON or has no messageId (401, 400);
 * - duplicate: a messageId this process already accepted (answered as before, not handed off
 *   again), or tracking news this gateway already told its order;
 * - held: kept in the account's inbox (no recipient yet, or unreadable);
 * - signalled: told to its order workflows, the checkout coordinator or the catalogue workflow;
 * - skipped: acknowledged with nothing to tell (the order knows it already, or has finished);
 * - failed: not handed to Temporal in time, or no signing key yet (503: the supplier retries).
 */
export type WebhookEventOutcome =
  'received' | 'rejected' | 'duplicate' | 'held' | 'signalled' | 'skipped' | 'failed';

/** `account`: the supplier account of the webhook route (only accounts the gateway knows). */
export function countWebhookEvent(outcome: WebhookEventOutcome, account: string): void {
  instruments().webhookEvents.add(1, { outcome, account });
}

/** The outcome label of a webhook Temporal took. */
export function handoffOutcome(outcome: HandoffOutcome): WebhookEventOutcome {
  switch (outcome.outcome) {
    case 'held':
      return 'held';
    case 'delivered':
    case 'catalogue':
      return 'signalled';
    case 'closed':
      return 'skipped';
    case 'skipped':
      return outcome.duplicate === true ? 'duplicate' : 'skipped';
  }
}
