/**
 * `webhookInbox` (id `webhook-inbox`, one per account): valid webhook events no workflow took —
 * an order dropflow does not know (yet), a look-up visibility could not answer yet, a message no
 * workflow consumes. Nothing valid is dropped: they are held (deduplicated by messageId), listed
 * by the `inbox` query, and routed again by the `replay` update once their order exists. Events
 * whose miss may be visibility trailing behind are also tried again by themselves a few times.
 * `discard` lets an operator let go of events nobody will take. The inbox is bounded: an event
 * evicted by the bound, or an ORDER event for an order dropflow never created let go after
 * UNKNOWN_ORDER_TTL_MS, is counted (`inbox` query) and logged at warn. Continues as new, carrying
 * its state, before its history grows heavy.
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
import type { InboxActivities } from './activities.js';
import {
  discardUpdate,
  holdEventSignal,
  inboxQuery,
  replayUpdate,
  type DiscardInput,
  type HeldEvent,
  type ReplayInput,
  type ReplayResult,
} from './contract.js';
import { InboxState, type InboxSnapshot } from './inboxState.js';
import { shouldContinueAsNew } from '../durable/longRunning.js';
import { accountPriority, ownAccount } from '../durable/account.js';
import { chunk } from '../tracking/trackingChanges.js';

export type WebhookInboxInput = Partial<InboxSnapshot>;

/** Held events per routing activity. */
const EVENTS_PER_CALL = 100;

const now = () => new Date().getTime();

const messageIdsOf = (options: ReplayInput | undefined): string[] | undefined =>
  options?.messageIds;

const earliest = (a: number | undefined, b: number | undefined): number | undefined =>
  a === undefined ? b : b === undefined ? a : Math.min(a, b);

export async function webhookInbox(input: WebhookInboxInput = {}): Promise<void> {
  const inbox = inboxState(input);
  const { attempt, busy } = routing(inbox);
  const idle = () => !busy();
  handleRequests(inbox, attempt);

  for (;;) {
    while (!idle()) await condition(idle);
    inbox.expire(now());
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
      await condition(() => !busy() && allHandlersFinished());
      return continueAsNew<typeof webhookInbox>(inbox.snapshot());
    }
    const version = inbox.version;
    const next = earliest(inbox.nextReplayAt(), inbox.nextExpiryAt());
    const woke = () => busy() || inbox.version !== version || shouldContinueAsNew();
    if (next === undefined) await condition(woke);
    else await condition(woke, Math.max(1, next - now()));
  }
}

/** The held events, with a log line (ids and topic only) for each one let go of. */
function inboxState(input: WebhookInboxInput): InboxState {
  return new InboxState(input, {
    // Ids and topic only: the params may hold personal data.
    onDrop: (held, cause) => {
      log.warn(
        cause === 'evicted'
          ? 'inbox: held webhook event evicted to keep the inbox bounded'
          : 'inbox: held webhook event for an order dropflow never created expired',
        {
          messageId: held.event.messageId,
          type: held.event.type,
          messageType: held.event.messageType,
          heldAt: held.heldAt,
          cause,
        },
      );
    },
  });
}

/**
 * The routing of held events, one attempt at a time, so an event is never routed by two attempts
 * at once. Several waiters may be released in one activation: each checks again once it runs,
 * and the first takes the lock before the next runs (no await between the check and the lock).
 */
function routing(inbox: InboxState): {
  attempt: (events: readonly HeldEvent[]) => Promise<ReplayResult>;
  /** An attempt is under way (read through a function: handlers change it while others wait). */
  busy: () => boolean;
} {
  const { routeHeldEvents } = proxyActivities<InboxActivities>({
    taskQueue: workflowInfo().taskQueue,
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 5 },
    priority: accountPriority(),
  });

  let busy = false;
  // Read through a function: handlers change it while the workflow waits.
  const idle = () => !busy;
  async function attempt(events: readonly HeldEvent[]): Promise<ReplayResult> {
    while (!idle()) await condition(idle);
    busy = true;
    try {
      const result: ReplayResult = { delivered: [], closed: [], stillHeld: [] };
      for (const slice of chunk(inbox.current(events), EVENTS_PER_CALL)) {
        const current = inbox.current(slice);
        if (current.length === 0) continue;
        const outcomes = await routeHeldEvents(
          current.map((h) => h.event),
          ...ownAccount(),
        );
        inbox.settle(outcomes, now(), result);
      }
      return result;
    } finally {
      busy = false;
    }
  }
  return { attempt, busy: () => busy };
}

/** The inbox's signal, query and updates: hold, look, replay, discard. */
function handleRequests(
  inbox: InboxState,
  attempt: (events: readonly HeldEvent[]) => Promise<ReplayResult>,
): void {
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
          throw ApplicationFailure.create({
            type: 'InvalidReplay',
            message: 'replay refused: messageIds must be a list of strings',
            nonRetryable: true,
          });
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
          throw ApplicationFailure.create({
            type: 'InvalidDiscard',
            message: 'discard refused: name the messageIds to let go of',
            nonRetryable: true,
          });
      },
    },
  );
}
