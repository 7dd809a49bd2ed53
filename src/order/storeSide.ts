/**
 * What the store tells an order that came from a store connection (docs/store-shopify.md): its
 * cancellation, its edits and the SKU mappings it waits for. Written by this class alone; the
 * order's steps (steps/storeIntake.ts, steps/shipment.ts) ask it what to do. A cancellation or an
 * edit reaches the order as an operator action would, through the narrow host the order lends.
 * Sandbox-safe.
 */
import { patched } from '@temporalio/workflow';

import { Patch } from '../durable/versions.js';
import { FINAL_STAGES, Stage } from './contract.js';
import type { StoreOrderLine, StoreOrderNews } from '../store/contract.js';
import { amendOrder, type OrderInput } from './orderInput.js';
import type { OperatorActions } from './operatorActions.js';
import type { PaymentRules } from './paymentRules.js';

/** How many store event ids an order remembers (a store order has a few events). */
const SEEN_LIMIT = 200;

/** What the order lends its store side: where it stands, its money, its actions, its timeline. */
export interface StoreSideHost {
  readonly current: { readonly input: OrderInput };
  readonly view: { readonly stage: Stage; note(note: string): void };
  readonly money: PaymentRules;
  readonly actions: OperatorActions;
}

export class StoreSide {
  private readonly seen: string[] = [];
  /** The store's cancellation, once it came: passed on as a cancel, or raised after payment. */
  private cancel: { reason: string; passed: boolean; raised: boolean } | undefined;
  /** When the store made the newest edit the order heard (ms since the epoch). */
  private newestEditAt: number | undefined;
  /** Grows with each `storeSkuMapped` signal: an order waiting for a mapping looks again. */
  mappingVersion = 0;

  /** `woken`: a wait for the supplier's news must see that the store cancelled. */
  constructor(
    private readonly host: StoreSideHost,
    private readonly woken: () => void,
  ) {}

  /**
   * The store's news (signal `storeOrder`): a cancellation becomes the order's cancel while it
   * may be cancelled, and asks a person after payment (steps/shipment.ts); an edit is taken while
   * the order is held or waits for a mapping (steps/storeIntake.ts), and noted otherwise, or when
   * it was made before an edit already heard.
   */
  heard(news: StoreOrderNews): void {
    const { input } = this.host.current;
    const { stage } = this.host.view;
    if (input.store === undefined || !this.fresh(news)) return;
    if (news.kind === 'cancelled') {
      const reason = `the store cancelled ${input.store.orderName} (${news.reason ?? 'no reason given'})`;
      this.cancel ??= { reason, passed: false, raised: false };
      this.passCancel();
      // Wakes an order that follows its parcel: a paid order stops for a person.
      this.woken();
      return;
    }
    if (news.order === undefined || news.lines === undefined || FINAL_STAGES.includes(stage)) {
      return;
    }
    if (this.madeBeforeNewest(news)) {
      this.host.view.note(
        `the store's edit made ${news.at ?? '?'} came after a later one: not taken (the later one stands)`,
      );
      return;
    }
    const edit = amendOrder(input, news.order);
    if (!edit.ok) return; // nothing changed, or nothing dropflow can take: the order stays
    if (stage === Stage.ON_HOLD || stage === Stage.AWAITING_MAPPING) {
      void this.host.actions.request('amend', {
        order: news.order,
        by: 'store',
        storeLines: news.lines,
      });
    } else {
      this.host.view.note(
        `the store changed ${edit.fields.join(', ')} after the order left its hold window: not taken (amend or cancel it)`,
      );
    }
  }

  /** A pending store cancellation becomes the order's cancel, when the money allows it now. */
  passCancel(): void {
    const reason = this.cancelWaiting;
    const { money, actions } = this.host;
    const { stage } = this.host.view;
    if (reason === undefined || FINAL_STAGES.includes(stage)) return;
    if (money.paid || !money.cancellable || actions.cancelUnderWay) return;
    if (this.cancel !== undefined) this.cancel.passed = true;
    void actions.request('cancel', { reason, by: 'store' });
  }

  /** The reason of a store cancellation not acted on yet. */
  get cancelWaiting(): string | undefined {
    return this.cancel !== undefined && !this.cancel.passed && !this.cancel.raised
      ? this.cancel.reason
      : undefined;
  }

  /** The store cancellation came after payment: a person was asked. */
  cancelRaised(): void {
    if (this.cancel !== undefined) this.cancel.raised = true;
  }

  skuMapped(): void {
    this.mappingVersion += 1;
  }

  /** Whether `news` was made before an edit already heard (and remembers the newest time). */
  private madeBeforeNewest(news: StoreOrderNews): boolean {
    const at = news.at === undefined ? NaN : Date.parse(news.at);
    if (Number.isNaN(at)) return false;
    if (this.newestEditAt !== undefined && at < this.newestEditAt) {
      // Asked only here: a run that took such an edit before replays as it ran.
      return patched(Patch.StoreEditsInOrder);
    }
    this.newestEditAt = at;
    return false;
  }

  /** Whether the event is new (and remembers it). */
  private fresh(news: StoreOrderNews): boolean {
    if (this.seen.includes(news.eventId)) return false;
    this.seen.push(news.eventId);
    if (this.seen.length > SEEN_LIMIT) this.seen.shift();
    return true;
  }
}

/** What a store edit's amend action carries beside the changes: the store's lines now. */
export interface StoreEditInput {
  order: Record<string, unknown>;
  by: 'store';
  storeLines: StoreOrderLine[];
}
