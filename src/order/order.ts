/**
 * The state of one order workflow, as one object that composes its parts, each the only writer
 * of its share (docs/architecture.md §5.4): what the order shows (statusProjection.ts: stage,
 * timeline, reasons, search attributes), where its money stands and what its checkout told it
 * (paymentRules.ts), the operator's actions and the waits for them (waits.ts), what the supplier
 * and the store told it, the order as amended, its margin, deadlines, parcels, its way to the
 * customer (delivery.ts) and what it tells its store. Steps tell the part that owns what
 * happened; they never set its fields. A part that must move the stage or write the timeline does
 * so through the narrow host the order lends it.
 */
import { Stage } from './contract.js';
import { flowLabel, type OrderInput } from './orderInput.js';
import type { ConnectedVariant } from '../store/intake/connectionActivities.js';
import { CurrentOrder } from './currentOrder.js';
import { StoreEventType } from '../storeEvents/contract.js';
import type { Amounts } from './activities.js';
import { MarginRecord } from './marginRecord.js';
import { ParcelCodes, SlaBreached, SvcOrderId } from '../temporal/searchAttributes.js';
import { StoreNotices } from './storeNotices.js';
import { OperatorActions } from './operatorActions.js';
import { PaymentRules } from './paymentRules.js';
import { StatusProjection } from './statusProjection.js';
import { StoreSide } from './storeSide.js';
import { Deadlines } from './deadlines.js';
import { Parcels } from './parcels.js';
import { SupplierWord } from './supplierWord.js';
import { Waits } from './waits.js';
import { Delivery } from './delivery.js';

export interface OrderOptions {
  /**
   * Search attributes are upserted once per workflow task and only when a value changes, starting
   * from those the order was started with (each upsert is a billed action).
   */
  lean?: boolean;
}

/**
 * Composes the order's parts; steps tell the part that owns what happened. Its own methods say
 * what happened where it takes more than one part and no part owns the event.
 */
export class Order {
  /** What the order shows: stage, timeline, reasons, search attributes. */
  readonly view: StatusProjection;
  /** The order's parcels once the supplier split it (steps/parcels.ts follows them). */
  readonly parcels: Parcels;
  /** The order's deadlines, when it keeps any (slaWatch.ts holds their timer). */
  readonly deadlines: Deadlines;
  /** What the supplier told the order: its latest facts, and which of them a push said. */
  readonly supplier: SupplierWord;
  /**
   * The payment's rules and events: who may cancel, approval, the shared shipment's payment, and
   * the checkout coordinator's outcomes as they arrive.
   */
  readonly money: PaymentRules;
  /** Where the order stands against its margin rule (marginGuard.ts checks it). */
  readonly margin: MarginRecord;
  /** The operator actions the order waits for, queued and answered. */
  readonly actions: OperatorActions;
  /** What the order tells its store, each event through its outbox. */
  readonly notices: StoreNotices;
  /** The order as submitted, with the amendments taken since. */
  readonly current: CurrentOrder;
  /** What its store said, for an order from a store connection. */
  readonly storeSide: StoreSide;
  /** Where the order stops for a person or an event; the host its supplier steps report to. */
  readonly waits: Waits;
  /** The order's way to its customer: shipped, delivered, completed. */
  readonly delivery: Delivery;

  constructor(input: OrderInput, options: OrderOptions = {}) {
    const view = new StatusProjection(
      input,
      options.lean === true,
      () => this.money.awaitingApproval,
      () => {
        this.notices.stageEntered();
      },
    );
    this.view = view;
    this.parcels = new Parcels((parcels, open) => {
      view.record({ parcels });
      if (open !== undefined) view.upsert([{ key: ParcelCodes, value: open }]);
    });
    this.deadlines = new Deadlines(this.parcels, {
      shown: (deadlines) => {
        view.record({ deadlines });
      },
      late: (data, breached, note) => {
        view.note(note);
        view.upsert([{ key: SlaBreached, value: breached }]);
        view.flush();
        this.notices.late(data);
      },
    });
    this.supplier = new SupplierWord(this.parcels, view);
    this.money = new PaymentRules(this);
    this.margin = new MarginRecord(view, (margin) => {
      view.record({ margin });
    });
    this.actions = new OperatorActions(() => view.stage);
    this.current = new CurrentOrder(input, view);
    this.storeSide = new StoreSide(this, () => {
      this.supplier.woken();
    });
    this.notices = new StoreNotices(input, view);
    this.waits = new Waits(this);
    this.delivery = new Delivery(this);
    view.enter(Stage.RECEIVED);
  }

  // ---- what the supplier did ------------------------------------------------------------------

  created(svcOrderId: string, amounts: Amounts | undefined, note?: string): void {
    this.view.record({ svcOrderId, atSupplier: true, amounts });
    this.view.upsert([{ key: SvcOrderId, value: svcOrderId }]);
    this.view.enter(Stage.CREATED, note);
    const shown = this.view.status.amounts;
    this.notices.created({ svcOrderId, amounts: { ...shown, currency: 'USD' } });
  }

  /** Every store line is connected at the supplier: the order is created in the store flow. */
  storeFlowChosen(connected: ReadonlyMap<string, ConnectedVariant>): void {
    this.current.storeFlowChosen(connected);
    this.view.flowChanged(flowLabel(this.current.input.fulfillment));
  }

  cancelled(reason: string, by: 'operator' | 'supplier'): void {
    this.view.enter(Stage.CANCELLED, reason);
    this.notices.once(StoreEventType.OrderCancelled, { reason, by });
  }
}
