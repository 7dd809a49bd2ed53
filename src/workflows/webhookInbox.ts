/**
 * `webhookInbox` (id `webhook-inbox`, one per account): valid webhook events no workflow took —
 * an order dropflow does not know (yet), a look-up visibility could not answer yet, a message no
 * workflow consumes. Nothing valid is dropped: they are held (deduplicated by messageId), listed
 * by the `inbox` query, and routed again by the `replay` update once their order exists. Events
 * whose miss may be visibility trailing behind are also tried again by themselves a few times.
 * `discard` lets an operator let go of events nobody will take. Continues as new, carrying its
 * state, before its history grows heavy.
 */
import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  log,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { InboxActivities } from '../activities/webhookInbox.js';
import {
  discardUpdate,
  holdEventSignal,
  inboxQuery,
  replayUpdate,
  type DiscardInput,
  type HeldEvent,
  type ReplayInput,
  type ReplayResult,
} from '../client/webhookDefinitions.js';
import { InboxState, type InboxSnapshot } from './inboxState.js';
import { shouldContinueAsNew } from './longRunning.js';
import { chunk } from './trackingChanges.js';

export type WebhookInboxInput = Partial<InboxSnapshot>;

/** Held events per routing activity. */
const EVENTS_PER_CALL = 100;

const now = () => new Date().getTime();

const messageIdsOf = (options: ReplayInput | undefined): string[] | undefined =>
  options?.messageIds;

export async function webhookInbox(input: WebhookInboxInput = {}): Promise<void> {
  const inbox = new InboxState(input);
  const { routeHeldEvents } = proxyActivities<InboxActivities>({
    taskQueue: workflowInfo().taskQueue,
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 5 },
  });

  // One routing attempt at a time, so an event is never routed by two attempts at once.
  let busy = false;
  async function attempt(events: readonly HeldEvent[]): Promise<ReplayResult> {
    await condition(() => !busy);
    busy = true;
    try {
      const result: ReplayResult = { delivered: [], closed: [], stillHeld: [] };
      for (const slice of chunk(inbox.current(events), EVENTS_PER_CALL)) {
        const current = inbox.current(slice);
        if (current.length === 0) continue;
        const outcomes = await routeHeldEvents(current.map((h) => h.event));
        inbox.settle(outcomes, now(), result);
      }
      return result;
    } finally {
      busy = false;
    }
  }

  setHandler(holdEventSignal, (request) => {
    if (inbox.hold(request, now())) {
      log.info('webhook event held', {
        messageId: request.event.messageId,
        type: request.event.type,
        reason: request.reason,
      });
    }
  });
  setHandler(inboxQuery, () => inbox.view());
  setHandler(
    replayUpdate,
    async (options) => {
      try {
        // `{}` or nothing (the Temporal UI and CLI may send no argument): every held event.
        return await attempt(inbox.select(messageIdsOf(options)));
      } catch (err) {
        if (!(err instanceof ActivityFailure)) throw err;
        throw ApplicationFailure.create({
          type: 'ReplayFailed',
          message: `replay could not route the held events: ${err.cause?.message ?? err.message}`,
          nonRetryable: true,
        });
      }
    },
    {
      validator: (options: ReplayInput | undefined) => {
        const ids = messageIdsOf(options);
        if (ids !== undefined && (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')))
          throw new Error('replay refused: messageIds must be a list of strings');
      },
    },
  );
  setHandler(
    discardUpdate,
    (options) => {
      const discarded = inbox.discard(options.messageIds);
      log.info('webhook events discarded', { discarded, by: options.by });
      return { discarded };
    },
    {
      validator: (options: DiscardInput) => {
        if (!Array.isArray(options.messageIds) || options.messageIds.length === 0)
          throw new Error('discard refused: name the messageIds to let go of');
      },
    },
  );

  for (;;) {
    await condition(() => !busy);
    const due = inbox.due(now());
    if (due.length > 0) {
      try {
        await attempt(due);
      } catch (err) {
        if (!(err instanceof ActivityFailure)) throw err;
        log.warn('inbox: an automatic replay failed; trying later', { error: err.message });
        inbox.postpone(due, now());
      }
      continue;
    }
    if (shouldContinueAsNew()) {
      await condition(() => !busy && allHandlersFinished());
      return continueAsNew<typeof webhookInbox>(inbox.snapshot());
    }
    const version = inbox.version;
    const next = inbox.nextReplayAt();
    const woke = () => busy || inbox.version !== version || shouldContinueAsNew();
    if (next === undefined) await condition(woke);
    else await condition(woke, Math.max(1, next - now()));
  }
}
