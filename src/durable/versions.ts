/**
 * Patch ids of workflow changes that running workflows must not see mid-way
 * (docs/changing-workflows.md). A patch id is never reused; one is removed only with its old
 * branch, once no open workflow started before it.
 */
export const Patch = {
  /**
   * fulfillOrder and disputeOrder on the reconciling supplier step (durable/supplierStep.ts).
   * Workflows started before it finish on the frozen code in ./v1.
   */
  ReconcilingSteps: 'reconciling-steps-2026-11',
  /**
   * fulfillOrder checks out with its account's other orders (checkout/coordinator.ts) and writes
   * search attributes only when they change, once per workflow task. Orders started before it
   * check out alone to the end.
   */
  BatchedCheckout: 'batched-checkout-2026-11',
  /**
   * trackingSweep continues as new page by page, matches the supplier's answers by every id and
   * flags orders the supplier went quiet about. Sweeps started before it finish on ./v1.
   */
  TrackingSweepPages: 'tracking-sweep-pages-2026-11',
  /**
   * followDelivery stops at NEEDS_ATTENTION on the sweeper's `stale` news (order/steps/shipment.ts).
   */
  TrackingStaleFlags: 'tracking-stale-flags-2026-11',
  /**
   * Order and dispute workflows tell the store what happened (storeEvents/outbox.ts). Asked at each
   * emission: workflows running before it emit from their next event on.
   */
  StoreEvents: 'store-events-2026-11',
  /**
   * A call dropflow's pacing held back (not sent) waits exactly for the account's slot, without
   * growing the step's pause (durable/supplierStep.ts).
   */
  PacedSlot: 'paced-slot-2026-11',
  /**
   * A call that found no access token waits for one with the `awaitAccessToken` activity, stops
   * at NEEDS_ATTENTION when the key is refused or the wait is too long, and goes on by itself once
   * a token is there (durable/tokenWait.ts).
   */
  TokenWait: 'token-wait-2026-11',
  /**
   * An order bounds every wait on its checkout coordinator (then asks it, and re-joins or goes on
   * alone), survives signals to a gone coordinator, writes its stage once a brief wait lasts, and
   * shares a confirmed shipment's money with its siblings. Asked at each such point: orders that
   * were waiting before it take it from their next wake-up on.
   */
  CheckoutBounds: 'checkout-bounds-2026-11',
  /**
   * accountCheckout (checkout/coordinator.ts): cancels answered only before a batch call may act,
   * siblings, the checkoutMember query, paced outcomes, continue-as-new by budget also while
   * batches run. Runs started before it go on in ./v1/checkout until idle, then continue as new.
   */
  CheckoutCoordinator: 'checkout-coordinator-2026-11',
  /**
   * supplierSession backs a refused refresh off with jitter, falls back to getAccessToken within
   * its spacing, records a refused API key and takes the `reauth` update. Asked before each
   * renewal and each turn of the old waits: a running session takes it at its next turn.
   */
  SessionBackoff: 'session-backoff-2026-11',
  /**
   * disputeOrder adopts only the dispute its create opened (disputeMatch.ts), follows it by a
   * matched id and continues as new. Decided at the start: disputes started before finish on
   * ./v2.
   */
  DisputeAdopt: 'dispute-adopt-2026-11',
  /**
   * Orders a batch confirmed into one shipment without naming each other (their coordinator gone,
   * or the confirmation's answer lost) pay it once: the one with the smallest svc order id pays,
   * the others look it up until it is paid (order/steps/batchedCheckout.ts). Asked where such an
   * order learns its shipment.
   */
  SharedShipmentPayer: 'shipment-payer-2026-11',
  /**
   * An order waiting for its shipment's payer (SharedShipmentPayer) asks, once the shipment is
   * still unpaid past its bound, whether the payer's workflow runs (the `orderRunOf` activity);
   * if not (terminated, failed, not found), the next order in the same order takes over paying,
   * after a look-up. Asked at each such check: orders already waiting take it at their next one.
   */
  ShipmentPayerTakeover: 'payer-takeover-2026-11',
  /**
   * supplierSession continues as new at its budget also while it waits to renew (a refused key,
   * getAccessToken's spacing): `token` updates then answer at once instead of waiting, so the run
   * can end. Decided at the start of a run.
   */
  SessionDrains: 'session-drain-2026-11',
  /**
   * A checkout batch settles a lost addCart or addCartConfirm answer by one look-up of all its
   * orders (then repeats the confirmation only to learn the shipment of orders shown confirmed),
   * keeps the orders the supplier shows done together, and lets go only of those it shows
   * untouched; a failing look-up of the batch is looked up again a few times before its orders
   * go on alone (checkout/batchLookUp.ts). Asked where a batch's answer is lost or its look-up
   * fails: batches under way before it hand their orders back as they did.
   */
  BatchLookUp: 'batch-lookup-2026-11',
  /**
   * A checkout batch whose look-up of an unknown outcome keeps failing (as many tries as an
   * order's own look-up) hands every order back at once with that failure, and each order stops
   * at NEEDS_ATTENTION with it (its step, code, message, requestId) instead of looking it up again
   * first: the same bound as an order alone. Replaces BatchLookUp's extra rounds (timers), which
   * runs that recorded them keep. Asked in the coordinator where a batch's look-up fails, and in
   * the order where such a hand-back arrives.
   */
  BatchLookUpBounded: 'batch-lookup-2-2026-11',
  /**
   * The checkout coordinator and the tracking sweeper take an `accountTier` signal: the run
   * upserts its memo `supplierTier` (durable/account.ts followAccountTier). Asked when such a
   * signal changes the tier: a run that received one on an older worker did nothing with it.
   */
  AccountTier: 'account-tier-2026-11',
  /**
   * fulfillOrder keeps its deadlines (order/slaWatch.ts): one timer for the deadline due first,
   * SlaBreached, `order.late`. Decided at the start: orders started before it keep none.
   */
  SlaTimers: 'sla-timers-2026-11',
  /**
   * The tracking sweeper keeps the account's webhook health (tracking/webhookRepair.ts): during a
   * gap it sweeps faster, registers the webhooks again (paced) and sweeps at once. Decided at the
   * start of a run: a sweeper running before it takes it when it next continues as new.
   */
  WebhookHealth: 'webhook-health-2026-11',
  /**
   * A used-up daily quota stops an order or a dispute at NEEDS_ATTENTION (step, code, message,
   * requestId) until the quota resets, a timer it goes on from by itself, or until resumed
   * (durable/supplierStep.ts); before, it slept until the reset at its working stage, which named
   * no reason. Asked where such an answer is met.
   */
  QuotaStop: 'quota-stop-2026-11',
  /**
   * An order with a margin rule (`fulfillment.margin`) checks its landed cost before it is
   * confirmed and before it pays (order/marginGuard.ts): a cheaper logistics line, else
   * AWAITING_APPROVAL; a checkout batch reads its ruled orders' amounts once after addCart and
   * takes out those that fail (checkout/marginBatch.ts). Asked only for orders with a rule, where
   * the guard would first act: orders without one issue the same commands as before.
   */
  MarginGuard: 'margin-guard-2026-11',
  /**
   * fulfillOrder follows parcels (order/steps/parcels.ts): news under a supplier code the order
   * does not know is held as a split claim and looked up, instead of taken as the order's own
   * status. Asked where such news first arrives: no recorded history had one held.
   */
  Parcels: 'parcels-2026-11',
  /**
   * With a key, signals, updates and starts whose arguments arrived unencrypted are refused
   * (durable/inboundGuard.ts). Asked only when such a message arrives: histories written before
   * the key, whose unencrypted messages were accepted, replay as they ran.
   */
  RefuseUnencryptedInbound: 'refuse-unencrypted-inbound-2026-11',
  /**
   * Webhook news that would end, pay or re-identify an order is acted on only once the supplier's
   * own order query shows it (order/steps/confirmNews.ts): a pushed CANCELLED or CLOSED, a pushed
   * status taken as proof of payment, ORDER_CONNNECTED's svc order id. Asked where such a push
   * would first be acted on: orders in flight take it at that point, runs that acted on a push
   * before it replay as they did.
   */
  PushesConfirmed: 'pushes-confirmed-2026-11',
  /**
   * Orders from a store connection (`input.store`): the hold window, SKUs resolved to supplier
   * variants (AWAITING_MAPPING), the store's cancellations and edits (order/steps/storeIntake.ts).
   * Decided at the start, for store orders only: no order started before it has a store.
   */
  StoreOrders: 'store-orders-2026-11',
  /**
   * A payment in doubt whose order the supplier no longer lists is settled by the orders it was
   * split into (its order number under other codes): paid children prove the payment, and a
   * vanished order is never read as unpaid (order/steps/payment.ts, checkout/coordinator.ts). Asked
   * where such a look-up would first have read the order unpaid: histories before it replay as they
   * ran.
   */
  SplitPayment: 'split-payment-2026-11',
  /**
   * A pushed SHIPPED or DELIVERED, and a pushed tracking number or link, reach the order's stage,
   * its status and the store only once the supplier's own order query shows the shipment; the
   * tracking told is the supplier's (order/steps/shipment.ts). Asked where such a push would
   * first be acted on: runs that took one on its word replay as they ran.
   */
  ShippingConfirmed: 'shipping-confirmed-2026-11',
  /**
   * A create whose answer was lost, looked up by the order number, that finds the number under
   * several codes (the supplier split the order before the order learned its code) stops at
   * NEEDS_ATTENTION naming them instead of taking the first for the order
   * (order/steps/checkout.ts). Asked only where such an answer is met: no recorded history had it.
   */
  SplitBeforeCreate: 'split-before-create-2026-11',
  /**
   * A store order's lines are first looked up among the supplier's connections of store products:
   * connected lines order the catalogue variant the connection names, and an order whose every
   * line is connected is created in the store flow (order/steps/storeIntake.ts). Asked where the
   * store lines are resolved: store orders before it resolve them by mapping and SKU alone.
   */
  StoreConnectedFlow: 'store-connected-flow-2026-11',
  /**
   * An order waits on its checkout batch with one timer, its bound, which it has from its start
   * (the memo CHECKOUT_BOUND_MEMO) instead of asking a worker with an activity; the stage it waits
   * in reaches visibility once the bound has passed, not after a 10-second timer
   * (order/steps/batchedCheckout.ts). Asked where the order first bounds that wait.
   */
  CheckoutBoundAtStart: 'checkout-bound-at-start-2026-11',
  /**
   * The account's tracking sweeper takes the orders the gateway's pushes named (`ordersPushed`)
   * and asks the supplier about them at once, between sweeps, telling each what the supplier shows
   * (tracking/trackingSweeper.ts). Asked once, where a run starts: earlier runs wait for their
   * next sweep as they did and take pushed orders from their next run on.
   */
  PushesSwept: 'pushes-swept-2026-11',
  /**
   * Stands for every patch above it but the inbound guard's (whose marker is the record of a
   * refusal): a run that recorded it takes their paths without a marker each (durable/patches.ts).
   * A new order recorded one marker and one TemporalChangeVersion upsert instead of six.
   */
  Baseline: 'baseline-2026-11-28',
  /**
   * The checkout coordinator tells a release's orders their outcomes through one activity
   * (`tellOutcomes`, checkout/tellActivities.ts) instead of one external signal per order, and
   * signals them itself only if every attempt of it fails (checkout/coordinator.ts). Asked once,
   * where a run starts: a run that started before signals per order to its end.
   */
  OutcomesByActivity: 'outcomes-by-activity-2026-11',
  /**
   * An order's own addCartConfirm is never the first word on a confirmation a batch may have made:
   * an order carted by a batch whose coordinator went away looks its confirmation up first, as
   * one shown confirmed does (order/steps/batchedCheckout.ts); an answer "confirmed without a
   * shipmentsId" is looked up instead of stopping; and the look-up adopts a payment the supplier
   * shows (its batch paid it) and keeps looking, within the order's lag, past a repeat that names
   * no shipment (order/steps/checkout.ts). Asked where each first differs: runs that recorded the
   * old path replay as they ran.
   */
  ConfirmLookedUp: 'confirm-looked-up-2026-11',
  /**
   * An order ready for checkout tells its coordinator through a local activity (`announceReady`,
   * checkout/startActivities.ts) that the worker gathers with the account's other ready orders
   * into one `checkoutReadyMany` signal-with-start per second; if it fails, the order signals as
   * before (order/steps/batchedCheckout.ts). The coordinator takes that signal only once it asked
   * this patch (checkout/coordinator.ts): a run that got it on older code had no handler, and
   * its orders re-join past their bound. Asked at each join.
   */
  ReadyBatched: 'ready-batched-2026-11',
  /**
   * The next baseline: stands for everything `Baseline` does and the three patches after it
   * (OutcomesByActivity, ConfirmLookedUp, ReadyBatched). A new order records it alone: one marker
   * and one TemporalChangeVersion upsert instead of two (a new coordinator run: instead of three).
   * New patches go below it and are not covered.
   */
  Baseline2: 'baseline-2026-11-29',
  /**
   * A store edit made before one the order already heard (the store's own time of the change) is
   * not taken but noted (order/storeSide.ts): Shopify may deliver webhooks out of order, and an
   * older edit arriving late would undo a newer one. Asked only where such an edit arrives: no
   * recorded history had one.
   */
  StoreEditsInOrder: 'store-edits-in-order-2026-11',
} as const;
export type PatchId = (typeof Patch)[keyof typeof Patch];

const ids: readonly PatchId[] = Object.values(Patch);
/** The baselines, newest first, as `has()` asks them: a new run records the first alone. */
const BASELINE_IDS: readonly PatchId[] = [Patch.Baseline2, Patch.Baseline];

/**
 * Each baseline and the patches it stands for: those listed before it, but baselines and the
 * inbound guard's.
 */
export const BASELINES: readonly { id: PatchId; covers: ReadonlySet<PatchId> }[] = BASELINE_IDS.map(
  (id) => ({
    id,
    covers: new Set(
      ids
        .slice(0, ids.indexOf(id))
        .filter((p) => p !== Patch.RefuseUnencryptedInbound && !BASELINE_IDS.includes(p)),
    ),
  }),
);
