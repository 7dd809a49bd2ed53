/**
 * What a checkout batch does with a supplier call it cannot settle by itself. It is the host of
 * its reconciling steps (BatchHost): a failure a person must see hands its orders back to go on
 * alone (HandBack), each from where the batch got. A lost answer to a cart call is settled for the
 * whole batch by one look-up (Patch.BatchLookUp): the supplier carts and confirms a batch's orders
 * in one act, so one order shown carted (confirmed) means the call acted; the orders it does not
 * show there are the ones it refused, believed only once its view had time to catch up (a lagging
 * view may show some orders late). Nothing is sent again until then: none shown after the lag,
 * the call provably did not act.
 */
import { log, sleep } from '@temporalio/workflow';
import type { FailureInfo } from '../supplier/failureDetails.js';
import type { Activities } from '../durable/activityProxies.js';
import type { Seen } from '../durable/supplierStep.js';
import type { OutcomeInDoubt, StepHost } from '../durable/stepHost.js';
import { backoff } from '../durable/failures.js';
import { Patch } from '../durable/versions.js';
import { type OrderStatus, reachedStatus } from '../supplier/api/constants.js';
import type { BatchCartOutcome } from './batchActivities.js';
import type { ReadyOrder } from './contract.js';
import type { BatchView, CheckoutState } from './state.js';
import { has } from '../durable/patches.js';

/**
 * The batch cannot go on by itself: its orders go on alone. `stops`: the outcome of a call is
 * unknown and its look-up kept failing; each order stops for a person with that failure.
 */
export class HandBack extends Error {
  constructor(
    readonly failure: FailureInfo,
    readonly options: { stops?: boolean } = {},
  ) {
    super(failure.message);
  }
}

/** The batch as the supplier step's host: a stop for a person hands the orders back instead. */
export class BatchHost implements StepHost {
  private unknown: OutcomeInDoubt | undefined;

  constructor(
    private readonly c: CheckoutState,
    private readonly batch: BatchView,
    readonly supplierLagMs: number,
  ) {}

  checkCancel(): void {}
  unknownOutcome(): OutcomeInDoubt | undefined {
    return this.unknown;
  }
  outcomeUnknown(step: string): void {
    this.unknown ??= { step, since: new Date().toISOString() };
  }
  outcomeSettled(): void {
    this.unknown = undefined;
  }
  note(text: string): void {
    log.info(`checkout ${this.batch.id}: ${text}`);
  }
  waitFor(what: string): void {
    this.c.batchAt(this.batch, this.batch.step, what);
  }
  doneWaiting(): void {
    this.c.batchAt(this.batch, this.batch.step);
  }
  async needsAttention(info: FailureInfo): Promise<void> {
    if (!isLookUp(info)) throw new HandBack(info);
    // A look-up that keeps failing stops each order for a person, as an order's own would.
    if (has(Patch.BatchLookUpBounded)) throw new HandBack(info, { stops: true });
    // Batches under Patch.BatchLookUp alone looked it up again a few rounds first.
    if (this.lookUpRounds < LOOK_UP_ROUNDS && has(Patch.BatchLookUp)) {
      this.lookUpRounds += 1;
      this.note(`${info.message}; looking it up again`);
      await sleep(backoff(this.lookUpRounds + 2));
      return;
    }
    throw new HandBack(info);
  }

  /** Whether the supplier's view had the lag to catch up since the outcome became unknown. */
  caughtUp(): boolean {
    const now = new Date().getTime();
    const since = this.unknown === undefined ? now : Date.parse(this.unknown.since);
    return now - since >= this.supplierLagMs;
  }

  private lookUpRounds = 0;
}

/** Rounds of a batch's failing look-up under Patch.BatchLookUp alone (kept for its histories). */
const LOOK_UP_ROUNDS = 3;

const isLookUp = (info: FailureInfo) => info.step.endsWith(' look-up');

/** A cart call settled by the batch's look-up: the orders the supplier refused go on alone. */
export type CartStep = BatchCartOutcome & { shipmentOrderId?: string; refused?: ReadyOrder[] };

/**
 * A lost answer to a cart call, settled by one look-up for the whole batch (batchLookUp.ts);
 * batches under way before Patch.BatchLookUp hand their orders back as they did.
 */
export function lookUpBatch(
  host: BatchHost,
  step: string,
  lookUp: (caughtUp: boolean) => Promise<Seen<CartStep>>,
): () => Promise<Seen<CartStep>> {
  return async () => {
    if (!has(Patch.BatchLookUp)) return eachOrderLooksUp(step)();
    const seen = await lookUp(host.caughtUp());
    if (seen.done && seen.note !== undefined) host.note(seen.note);
    return seen;
  };
}

export const found = (
  step: string,
  shown: BatchTaken,
  extra: Partial<CartStep> = {},
): Seen<CartStep> => ({
  done: true,
  value: { intercepted: [], refused: shown.refused, ...extra },
  note: `${step} found done for ${shown.taken.length} order(s) of the batch, ${shown.refused.length} refused`,
});

/** For a call the batch does not settle itself: each order looks it up on its own. */
export const eachOrderLooksUp = (step: string) => (): Promise<never> =>
  Promise.reject(
    new HandBack({
      step,
      message: `${step} for the batch got no answer; each order looks its own outcome up`,
    }),
  );

/** What the supplier shows of a batch call whose answer was lost. */
export interface BatchTaken {
  /** The orders the call took (in the cart, or in the shipment). */
  taken: ReadyOrder[];
  /** The orders it refused: each goes on alone (its own call shows why). */
  refused: ReadyOrder[];
}

/** The shipment of a confirmation whose answer was lost, and the orders in it. */
export interface BatchConfirmed extends BatchTaken {
  shipmentOrderId: string;
}

/** The batch's orders as the supplier names them. */
export const ids = (orders: readonly ReadyOrder[]) => orders.map((o) => o.svcOrderId);

/**
 * Which orders of the batch the supplier shows at `status` or later. `caughtUp`: the supplier's
 * view had its lag to catch up since the answer was lost (then the orders not shown are refused).
 */
export async function takenByCall(
  acts: Activities,
  orders: readonly ReadyOrder[],
  status: OrderStatus,
  caughtUp: boolean,
): Promise<Seen<BatchTaken>> {
  const seen = await acts.batch.getOrderDetailBatch(ids(orders));
  const shown = (o: ReadyOrder) =>
    seen.some(
      (s) =>
        (s.svcOrderId === o.svcOrderId || s.svcOrderCode === o.svcOrderId) &&
        reachedStatus(s.orderStatus, status),
    );
  const taken = orders.filter(shown);
  const refused = orders.filter((o) => !shown(o));
  if (taken.length === 0 || (refused.length > 0 && !caughtUp)) return { done: false };
  return { done: true, value: { taken, refused } };
}

/**
 * The shipment of orders shown confirmed: a repeated confirmation of confirmed orders answers
 * their shipment again and confirms nothing (docs/supplier-api.md), and the shipment's own list
 * says which orders of the batch it holds. Undefined when the supplier's answers disagree.
 */
export async function confirmedShipment(
  acts: Activities,
  orders: readonly ReadyOrder[],
  shown: BatchTaken,
): Promise<BatchConfirmed | undefined> {
  const again = await acts.supplierOnce.addCartConfirmBatch(ids(shown.taken));
  const shipmentOrderId = again.shipmentOrderId;
  if (shipmentOrderId === undefined || again.intercepted.length > 0) return undefined;
  const members = new Set(await acts.supplier.ordersOfShipment(shipmentOrderId));
  if (!shown.taken.every((o) => members.has(o.svcOrderId))) return undefined;
  return {
    shipmentOrderId,
    taken: orders.filter((o) => members.has(o.svcOrderId)),
    refused: orders.filter((o) => !members.has(o.svcOrderId)),
  };
}
