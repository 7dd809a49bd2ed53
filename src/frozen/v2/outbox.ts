/**
 * The frozen runs' copy of storeEvents/outbox.ts as it was on 2026-11-28, less continue-as-new,
 * which these disputes never do.
 *
 * The events one order (or dispute) workflow tells the store, delivered one at a time in the
 * order they happened: a later event is not sent before the earlier one is delivered. Emitting
 * never waits; the workflow's own steps go on while the outbox delivers, and the workflow only
 * waits for it at its very end. A failed attempt is tried again after the delay the delivery
 * activity names (the worker's backoff, or the store's Retry-After), for as long as it takes:
 * nothing is dropped. The first event also learns whether the workers send events at all; if they
 * have no STORE_EVENTS_URL, the outbox emits nothing more.
 *
 * Orders that were running before store events existed start emitting with their next event
 * (`patched` is asked at each emission, and is false only while replaying what came before).
 */
import { ActivityFailure, condition, sleep, uuid4 } from '@temporalio/workflow';
import type { DeliveryResult, StoreEventActivities } from '../../storeEvents/activities.js';
import type {
  StoreEvent,
  StoreEventDataMap,
  StoreEventsView,
  StoreEventType,
} from '../../storeEvents/contract.js';
import { has, Patch } from '../common/patches.js';

/** Told of every change, and when the outbox falls behind (a failed attempt) or catches up. */
export interface OutboxHost {
  storeEventsChanged(view: StoreEventsView): void;
  storeEventsBehind(behind: boolean): void;
}

/** When an attempt ended without the activity's answer (it timed out, its worker died). */
const FIRST_RETRY_MS = 5_000;
const MAX_RETRY_MS = 3_600_000;

export class StoreEventOutbox {
  private mode: StoreEventsView['mode'] = 'unknown';
  private readonly queue: StoreEvent[] = [];
  private delivered = 0;
  private attempts = 0;
  private lastFailure: StoreEventsView['lastFailure'];
  private nextAttemptAt: string | undefined;
  private draining = false;
  private behind = false;

  constructor(
    private readonly orderNumber: string,
    private readonly deliver: StoreEventActivities['deliverStoreEvent'],
    private readonly host: OutboxHost,
  ) {}

  emit<T extends StoreEventType>(type: T, stage: string, data: StoreEventDataMap[T]): void {
    if (this.mode === 'off' || !has(Patch.StoreEvents)) return;
    this.queue.push({
      id: `evt_${uuid4().replace(/-/g, '')}`,
      type,
      occurredAt: new Date().toISOString(),
      orderNumber: this.orderNumber,
      stage,
      data,
    } as StoreEvent);
    this.publish();
    if (!this.draining) void this.drain();
  }

  /** Whether emitted events wait to be delivered. */
  get delivering(): boolean {
    return this.draining;
  }

  /** Resolves once every emitted event is delivered (or the workers send none). */
  async allDelivered(): Promise<void> {
    await condition(() => !this.draining);
  }

  view(): StoreEventsView {
    return {
      mode: this.mode,
      delivered: this.delivered,
      waiting: this.queue.map((e) => ({ id: e.id, type: e.type, occurredAt: e.occurredAt })),
      attempts: this.attempts,
      ...(this.lastFailure !== undefined && { lastFailure: this.lastFailure }),
      ...(this.nextAttemptAt !== undefined && { nextAttemptAt: this.nextAttemptAt }),
    };
  }

  /** Delivers the queue. */
  private async drain(): Promise<void> {
    this.draining = true;
    try {
      for (let event = this.queue[0]; event !== undefined; event = this.queue[0]) {
        // Awaited as before (no extra step): the order of commands of running workflows stays.
        const result: DeliveryResult = await this.attempt(event);
        if (result.outcome === 'off') {
          this.mode = 'off';
          this.queue.length = 0;
        } else if (result.outcome === 'delivered') {
          this.mode = 'on';
          this.queue.shift();
          this.delivered += 1;
          this.attempts = 0;
          this.lastFailure = undefined;
          this.nextAttemptAt = undefined;
        } else {
          this.attempts += 1;
          const now = new Date();
          this.lastFailure = {
            message: result.message,
            ...(result.status !== undefined && { status: result.status }),
            at: now.toISOString(),
            ...(result.reason !== undefined && { reason: result.reason }),
          };
          this.nextAttemptAt = new Date(now.getTime() + result.retryInMs).toISOString();
          this.fallBehind(true);
          this.publish();
          await sleep(result.retryInMs);
          this.nextAttemptAt = undefined;
        }
        this.publish();
      }
      this.fallBehind(false);
    } finally {
      this.draining = false;
    }
  }

  private async attempt(event: StoreEvent): Promise<DeliveryResult> {
    try {
      return await this.deliver({ event, attempt: this.attempts + 1 });
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      return {
        outcome: 'failed',
        message: `the delivery attempt did not finish: ${err.cause?.message ?? err.message}`,
        retryInMs: Math.min(FIRST_RETRY_MS * 2 ** this.attempts, MAX_RETRY_MS),
      };
    }
  }

  private fallBehind(behind: boolean): void {
    if (this.behind === behind) return;
    this.behind = behind;
    this.host.storeEventsBehind(behind);
  }

  private publish(): void {
    this.host.storeEventsChanged(this.view());
  }
}
