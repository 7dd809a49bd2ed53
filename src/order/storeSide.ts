/**
 * What the store tells an order that came from a store connection (docs/store-shopify.md): its
 * cancellation, its edits and the SKU mappings it waits for. Written by the Order alone; the
 * order's steps (steps/storeIntake.ts, steps/shipment.ts) ask it what to do. Sandbox-safe.
 */
import type { StoreOrderLine, StoreOrderNews } from '../store/contract.js';

/** How many store event ids an order remembers (a store order has a few events). */
const SEEN_LIMIT = 200;

export class StoreSide {
  private readonly seen: string[] = [];
  /** The store's cancellation, once it came: passed on as a cancel, or raised after payment. */
  private cancel: { reason: string; passed: boolean; raised: boolean } | undefined;
  /** Grows with each `storeSkuMapped` signal: an order waiting for a mapping looks again. */
  mappingVersion = 0;

  /** Whether the event is new (and remembers it). */
  fresh(news: StoreOrderNews): boolean {
    if (this.seen.includes(news.eventId)) return false;
    this.seen.push(news.eventId);
    if (this.seen.length > SEEN_LIMIT) this.seen.shift();
    return true;
  }

  cancelled(reason: string): void {
    this.cancel ??= { reason, passed: false, raised: false };
  }

  /** The reason of a store cancellation not acted on yet. */
  get cancelWaiting(): string | undefined {
    return this.cancel !== undefined && !this.cancel.passed && !this.cancel.raised
      ? this.cancel.reason
      : undefined;
  }

  /** The store cancellation became the order's cancel. */
  cancelPassed(): void {
    if (this.cancel !== undefined) this.cancel.passed = true;
  }

  /** The store cancellation came after payment: a person was asked. */
  cancelRaised(): void {
    if (this.cancel !== undefined) this.cancel.raised = true;
  }

  skuMapped(): void {
    this.mappingVersion += 1;
  }
}

/** What a store edit's amend action carries beside the changes: the store's lines now. */
export interface StoreEditInput {
  order: Record<string, unknown>;
  by: 'store';
  storeLines: StoreOrderLine[];
}
