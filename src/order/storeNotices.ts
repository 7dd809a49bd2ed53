/**
 * What an order tells its store (docs/store-events.md), written by this class alone: each event
 * once in the order's life, but order.needs_attention once per stop, order.created again when an
 * amend replaced the order at the supplier (a new svcOrderId), and order.shipped again when its
 * tracking number changed. Its outbox delivers them in order, each named by the stage it was told
 * in; an order from a connected store names its store order on each delivery.
 */
import type { Stage } from './contract.js';
import { StoreEventType, type StoreEventDataMap } from '../storeEvents/contract.js';
import type { StoreEventActivities } from '../storeEvents/activities.js';
import { StoreEventOutbox, type OutboxHost } from '../storeEvents/outbox.js';
import { storeEventDelivery } from '../durable/activityProxies.js';
import type { OrderInput } from './orderInput.js';

type Data<T extends StoreEventType> = StoreEventDataMap[T];
type ParcelEvent = typeof StoreEventType.OrderSplit | typeof StoreEventType.OrderShipped;

/** What the order lends its notices: its stage, and how its outbox shows (OutboxHost). */
export interface StoreNoticesHost extends OutboxHost {
  readonly stage: Stage;
  /** What the order shows is written before it waits for its last deliveries. */
  flush(): void;
}

export class StoreNotices {
  private readonly outbox: StoreEventOutbox;
  /** Events told once in an order's life (all but needs_attention). */
  private readonly told = new Set<StoreEventType>();
  /** The store has heard of the stop the order is in (reset by every stage entered). */
  private stopTold = false;
  /** The tracking number the store was told with order.shipped. */
  private shippedWith: string | undefined;
  /** The supplier order the store was told of with order.created. */
  private createdWith: string | undefined;

  constructor(
    input: OrderInput,
    private readonly host: StoreNoticesHost,
  ) {
    this.outbox = new StoreEventOutbox(input.order.orderNumber, deliveryFor(input), host);
  }

  /** A stage was entered: a stop there is news to the store again. */
  stageEntered(): void {
    this.stopTold = false;
  }

  /** The supplier has the order: told again only under a new svcOrderId (an amend replaced it). */
  created(data: Data<typeof StoreEventType.OrderCreated>): void {
    if (this.createdWith === data.svcOrderId) return;
    this.createdWith = data.svcOrderId;
    this.emit(StoreEventType.OrderCreated, data);
  }

  /** Whether the store was told the order shipped. */
  get shippedTold(): boolean {
    return this.told.has(StoreEventType.OrderShipped);
  }

  /** Whether the store was told the order shipped under another tracking number. */
  retracked(trackNumber: string | undefined): boolean {
    return this.shippedTold && trackNumber !== this.shippedWith;
  }

  /** The order shipped, or its tracking number changed since the store was told. */
  shipped(data: Data<typeof StoreEventType.OrderShipped>): void {
    this.told.add(StoreEventType.OrderShipped);
    this.shippedWith = data.trackNumber;
    this.emit(StoreEventType.OrderShipped, data);
  }

  /** One of the order's parcels (steps/parcels.ts: split, shipped). */
  parcel<T extends ParcelEvent>(type: T, data: Data<T>): void {
    if (type === StoreEventType.OrderShipped) this.told.add(type);
    this.emit(type, data);
  }

  /** An event the store hears once in the order's life (paid, delivered, completed, cancelled). */
  once<T extends StoreEventType>(type: T, data: Data<T>): void {
    if (this.told.has(type)) return;
    this.told.add(type);
    this.emit(type, data);
  }

  /** The order stopped for a person: the store hears it once per stop. */
  stopped(data: () => Data<typeof StoreEventType.OrderNeedsAttention>): void {
    if (this.stopTold) return;
    this.stopTold = true;
    this.emit(StoreEventType.OrderNeedsAttention, data());
  }

  /** A deadline was missed (told each time). */
  late(data: Data<typeof StoreEventType.OrderLate>): void {
    this.emit(StoreEventType.OrderLate, data);
  }

  /** At the end: what the order shows is written, then its events reach the store. */
  async allDelivered(): Promise<void> {
    if (!this.outbox.delivering) return;
    this.host.flush();
    await this.outbox.allDelivered();
  }

  private emit<T extends StoreEventType>(type: T, data: Data<T>): void {
    this.outbox.emit(type, this.host.stage, data);
  }
}

/**
 * The outbox's delivery: an order from a connected store names its store order and its account on
 * each attempt, and the activity writes the event there once the connection is the account's
 * (src/storeEvents/storeDelivery.ts). Only the activity's input differs: the workflow's commands
 * stay the same, so histories replay.
 */
function deliveryFor({
  store,
  account,
}: Pick<OrderInput, 'store' | 'account'>): StoreEventActivities['deliverStoreEvent'] {
  const deliver = storeEventDelivery();
  if (store === undefined) return deliver;
  return (input) => deliver({ ...input, store, ...(account !== undefined && { account }) });
}
