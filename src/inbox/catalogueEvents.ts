/**
 * `catalogueEvents` (id `catalogue-events`, one per account): the product, variant and stock
 * webhook events, deduplicated by messageId, forwarded in batches to the upstream address the
 * workers are configured with (CATALOGUE_EVENTS_URL) through an activity that retries; a failing
 * upstream is tried again and again, never skipped. Without an address the events are only kept.
 * Either way the latest ones are listed by the `catalogueEvents` query. Continues as new,
 * carrying its state, before its history grows heavy.
 */
import {
  ActivityFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  log,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { CatalogueForwardingActivities } from './catalogueActivities.js';
import {
  catalogueEventSignal,
  catalogueEventsQuery,
  type CatalogueView,
  type WebhookEvent,
} from './contract.js';
import { BoundedList, pushBounded, shouldContinueAsNew } from '../durable/longRunning.js';
import { accountPriority } from '../durable/account.js';

/** Latest events listed by the query (count, and characters of JSON). */
export const RECENT_LIMIT = 100;
const RECENT_CHARS_LIMIT = 200_000;
/**
 * Events waiting to be forwarded (count, and characters of JSON). Workflow state must stay
 * bounded: if upstream stays away this long, the oldest waiting events go — each one counted
 * (`overflowed` in the query) and logged at warn, never silently.
 */
export const PENDING_LIMIT = 1_000;
const PENDING_CHARS_LIMIT = 600_000;
const SEEN_LIMIT = 5_000;
const EVENTS_PER_FORWARD = 100;
/** After the activity's own retries gave up. */
const RETRY_AFTER_FAILURE = '5 minutes';

export interface CatalogueEventsInput {
  pending?: WebhookEvent[];
  recent?: WebhookEvent[];
  seen?: string[];
  view?: Omit<CatalogueView, 'recent' | 'pending'>;
}

export async function catalogueEvents(input: CatalogueEventsInput = {}): Promise<void> {
  const pending = new BoundedList(input.pending ?? [], PENDING_LIMIT, PENDING_CHARS_LIMIT);
  const recent = new BoundedList(input.recent ?? [], RECENT_LIMIT, RECENT_CHARS_LIMIT);
  const seen = [...(input.seen ?? [])];
  const view: Omit<CatalogueView, 'recent' | 'pending'> = {
    received: 0,
    forwarded: 0,
    forwarding: 'unknown',
    overflowed: 0,
    ...input.view,
  };
  const { forwardCatalogueEvents } = proxyActivities<CatalogueForwardingActivities>({
    taskQueue: workflowInfo().taskQueue,
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '1 minute', maximumAttempts: 10 },
    priority: accountPriority(),
  });

  setHandler(catalogueEventSignal, (event) => {
    if (seen.includes(event.messageId)) return;
    pushBounded(seen, event.messageId, SEEN_LIMIT);
    view.received += 1;
    for (const gone of pending.push(event)) {
      view.overflowed += 1;
      // Ids and topic only: no payload in the log.
      log.warn('catalogue events: backlog full; the oldest waiting event was dropped unforwarded', {
        messageId: gone.messageId,
        type: gone.type,
        messageType: gone.messageType,
        overflowed: view.overflowed,
      });
    }
    // The list the query shows; what leaves it was forwarded or is still pending (or logged above).
    recent.push(event);
  });
  setHandler(catalogueEventsQuery, () => ({
    ...view,
    recent: recent.items,
    pending: pending.length,
  }));

  for (;;) {
    await condition(() => pending.length > 0 || shouldContinueAsNew());
    if (pending.length > 0) {
      const batch = pending.items.slice(0, EVENTS_PER_FORWARD);
      try {
        const { forwarded } = await forwardCatalogueEvents(batch);
        view.forwarding = forwarded ? 'upstream' : 'off';
        if (forwarded) view.forwarded += batch.length;
        delete view.lastError;
        // By identity: the bound may have pushed some of the batch out meanwhile.
        pending.remove((event) => batch.includes(event));
      } catch (err) {
        if (!(err instanceof ActivityFailure)) throw err;
        view.lastError = err.cause?.message ?? err.message;
        log.warn('catalogue events: forwarding failed; trying again later', {
          error: view.lastError,
          pending: pending.length,
        });
        await sleep(RETRY_AFTER_FAILURE);
      }
    }
    if (shouldContinueAsNew()) {
      await condition(allHandlersFinished);
      return continueAsNew<typeof catalogueEvents>({
        pending: pending.items,
        recent: recent.items,
        seen,
        view,
      });
    }
  }
}
