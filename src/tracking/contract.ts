/**
 * The tracking sweeper's contract (docs/architecture.md §15): its workflow types and id, its
 * settings, signals and status query, for the workers that ensure it, the replay check and tests.
 * Sandbox-safe: types, definers and pure functions only.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import { Stage, type TrackingEvent } from '../order/contract.js';

/** The account's one long-running sweeper (trackingSweeper.ts). */
export const TRACKING_SWEEPER_WORKFLOW = 'trackingSweeper';
/** A sweep started by the schedule of an earlier release (trackingSweep.ts). */
export const TRACKING_SWEEP_WORKFLOW = 'trackingSweep';

/** `tracking-sweep:<account>`: the sweeper's workflow id (and the former schedule's id). */
export function trackingSweeperId(accountLabel?: string): string {
  return `tracking-sweep:${accountLabel === undefined || accountLabel === '' ? 'default' : accountLabel}`;
}

/** An order the sweeper follows, as visibility shows it: what it is known by, and its stage. */
export interface TrackedOrder {
  workflowId: string;
  /** The supplier id the order stored (whichever one its create or look-up gave). */
  svcOrderId?: string;
  /** The caller's order name, which the supplier also answers to. */
  orderNumber?: string;
  stage: Stage;
  /** A split order's parcels still on their way (ParcelCodes): asked about one by one. */
  parcelCodes?: string[];
  /** For one parcel of a split order: the order's workflow, told what the parcel's code says. */
  signalTo?: string;
}

/**
 * An order a push said has shipped, been delivered or got a tracking number: the sweeper asks the
 * supplier about it at once, with every other order pushed since, and tells it what the supplier
 * shows. Its stage is the one the gateway last saw, which may trail the order's.
 */
export interface PushedOrder extends TrackedOrder {
  /** Tracking events a logistics push carried: informative, passed on as they came. */
  events?: { messageId: string; trackingEvents: TrackingEvent[] };
}

/** A push about an order already pushed: its latest word, keeping tracking events said before. */
export function mergePushed(before: PushedOrder | undefined, order: PushedOrder): PushedOrder {
  const events = order.events ?? before?.events;
  return { ...order, ...(events !== undefined && { events }) };
}

/**
 * An order as its search attributes name it (FulfillmentStage, SvcOrderId, OrderNumber,
 * ParcelCodes), for the sweeper: empty ids left out, RECEIVED when it has written no stage yet.
 * For visibility's listings and the gateway's describes alike.
 */
export function trackedOrder(
  workflowId: string,
  named: { stage?: string; svcOrderId?: string; orderNumber?: string; parcelCodes?: string[] },
): TrackedOrder {
  const svcOrderId = filled(named.svcOrderId);
  const orderNumber = filled(named.orderNumber);
  const parcelCodes = named.parcelCodes ?? [];
  return {
    workflowId,
    ...(svcOrderId !== undefined && { svcOrderId }),
    ...(orderNumber !== undefined && { orderNumber }),
    ...(parcelCodes.length > 0 && { parcelCodes }),
    stage: (named.stage ?? Stage.RECEIVED) as Stage,
  };
}

const filled = (value: string | undefined): string | undefined =>
  value === undefined || value === '' ? undefined : value;

/** `ordersPushed`: a gateway's batch of pushed orders (pushedOrders.ts in the gateway). */
export const ordersPushedSignal = defineSignal<[PushedOrder[]]>('ordersPushed');

export interface SweeperSettings {
  /** Seconds between the end of one sweep and the start of the next. */
  everySeconds: number;
  /** A supplier status unchanged this long flags the order (default 14 days). */
  staleAfterSeconds?: number;
  /** An order the supplier has not listed this long (over 2 sweeps at least) is flagged. */
  missingAfterSeconds?: number;
  /** Orders per visibility page (default 1000). */
  pageSize?: number;
  /** Webhook health and repair (patch webhook-health-2026-11); absent: measured only. */
  webhooks?: WebhookRepairSettings;
}

/** What a starter gives the sweeper; a run carries the rest itself (trackingSweeper.ts). */
export interface SweeperStartInput {
  settings: SweeperSettings;
}

export interface SweepCounts {
  /** Workflow runs the sweep took (one per page). */
  runs: number;
  /** Tracked orders found in visibility. */
  orders: number;
  /** Supplier calls: detailCalls + proofCalls. */
  batchCalls: number;
  /** getOrderDetailBatch calls, including those asking again by order number. */
  detailCalls: number;
  proofCalls: number;
  /**
   * Calls that failed after their retries; their orders wait for the next sweep (a failed listing
   * ends the sweep there).
   */
  failedCalls: number;
  /** Orders the supplier did not list, asked by every id they are known by. */
  missing: number;
  /** Orders told something new (news or a flag). */
  signalled: number;
  /** Flags sent: the supplier stopped listing the order, or its status did not move. */
  flagged: number;
  /** Orders whose news was sent by an earlier sweep and still applies: not sent again. */
  toldBefore: number;
  /** Orders that had closed by the time of their signal. */
  closed: number;
  /** Orders whose signal failed after its retries; the next sweep tells them. */
  unsignalled: number;
}

export interface LastSweep extends SweepCounts {
  sweep: number;
  startedAt: string;
  endedAt: string;
}

export interface SweeperStatus {
  settings: SweeperSettings;
  /** The sweep under way, or the next one. */
  sweep: number;
  /** When the next sweep starts, while the sweeper waits. */
  nextSweepAt?: string;
  last?: LastSweep;
  /** What reaches orders by push and by sweep (runs on webhook-health-2026-11). */
  webhooks?: WebhookHealthView;
  /** The looks at pushed orders between sweeps, since this run started (pushes-swept-2026-11). */
  pushes?: PushLooks;
}

export interface PushLooks {
  looks: number;
  /** Pushed orders asked about. */
  orders: number;
  /** Orders told something new. */
  signalled: number;
  lastAt?: string;
}

export const sweeperSettingsSignal = defineSignal<[SweeperSettings]>('sweeperSettings');
export const sweepNowSignal = defineSignal('sweepNow');
export const sweeperStatusQuery = defineQuery<SweeperStatus>('sweeperStatus');

/**
 * Webhook health (docs/webhook-health.md): the sweeper compares what reaches orders by push with
 * what only its sweeps find, and repairs the pushes. Absent settings: measured, never repaired.
 */
export interface WebhookRepairSettings {
  /**
   * Where the supplier pushes this account's webhooks; the sweeper registers it again
   * (`webhook/set`) when pushes stop. Absent: no registration, only the faster sweeps.
   */
  callbackUrl?: string;
  /** News found only by sweeps for this long (or failing acknowledgements) is a gap. */
  gapSeconds: number;
  /** The least time between two repairs; it doubles while they do not help (cap 24 h). */
  registerEverySeconds: number;
  /** Seconds between sweeps during a gap (at most `everySeconds`). */
  repairEverySeconds: number;
}

/** The bounds when a starter gives none: a gap after 10 min, repairs 15 min apart at least. */
export const DEFAULT_WEBHOOK_REPAIR: WebhookRepairSettings = {
  gapSeconds: 600,
  registerEverySeconds: 900,
  repairEverySeconds: 30,
};

/** What one gateway heard of a topic's pushes since its last pulse. */
export interface TopicPushes {
  /** Pushes answered 200. */
  accepted: number;
  /** Pushes answered otherwise (503: not handed to Temporal; the supplier retries). */
  failed: number;
  /** When the latest accepted push arrived (ISO). */
  lastAcceptedAt?: string;
  /** When the latest push that told an order news arrived (ISO). */
  lastToldAt?: string;
}

/** `webhookPulse`: a gateway's tally of one account's pushes, per topic, sent now and then. */
export interface WebhookPulse {
  topics: Record<string, TopicPushes>;
}

/** The webhook health an account's sweeper keeps (the `webhooks` of SweeperStatus). */
export interface WebhookHealthView {
  /** `healthy`, `gap` (repairing), or `pollingOnly` (registrations did not bring pushes back). */
  mode: 'healthy' | 'gap' | 'pollingOnly';
  /** Seconds order news has reached orders only through sweeps; 0 while pushes arrive. */
  gapSeconds: number;
  /** The bound after which a gap is repaired. */
  gapBoundSeconds?: number;
  /** Since when (ISO) news arrives only by sweeps. */
  pollOnlySince?: string;
  /** Changes the sweeps told orders before any push did, since the record began. */
  polledChanges: number;
  /** Per topic: pushes accepted and failed (as the gateways reported them), the latest. */
  topics: Record<string, TopicPushes>;
  /** Since when (ISO) the gateways' acknowledgements show failures. */
  failingSince?: string;
  /** webhook/set calls the sweeper sent, and the latest. */
  registrations: number;
  lastRegistration?: { at: string; ok: boolean; error?: string };
  /** During a gap: the earliest next repair (registration and sweep at once), ISO. */
  nextRepairAt?: string;
  /**
   * How late a change may reach its order at worst, in seconds: the sweep interval in force plus
   * the last sweep's duration (pushes, when they work, are faster).
   */
  worstCaseSeconds: number;
}

export const webhookPulseSignal = defineSignal<[WebhookPulse]>('webhookPulse');
