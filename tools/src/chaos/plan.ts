/**
 * The fault plan: what is done to the run and when (milliseconds after the start), drawn from the
 * seed. Sandbox faults are armed for the chaos account and hit its next matching calls; the
 * disruptions are done to the processes (or the account's tokens) at their time.
 */
import {
  addCart,
  addCartConfirm,
  createDispute,
  createOrderV3,
  getAccessToken,
  getOrderDetailBatch,
  payBalanceV2,
  refreshAccessToken,
  saveGenerateParentOrder,
  uploadWaybillInfo,
} from 'dropflow/supplier';
import type { Random } from './random.js';
import { QUOTA_FAULT, type FaultRequest } from '../localStack/sandboxControls.js';

/** Things done to the processes and the account, besides the sandbox's faults. */
export const Disruption = {
  /** SIGKILL of the worker process, then a new one. */
  kill9: 'kill9',
  /** SIGKILL of the Temporal dev server, started again on its database file. */
  serverRestart: 'serverRestart',
  /** The account's tokens expire at the supplier (POST /__sandbox/tokens/expire). */
  tokenExpire: 'tokenExpire',
  /** An operator terminates the account's checkout coordinator (`checkout:<account>`). */
  terminateCheckout: 'terminateCheckout',
  /** An operator resets it to its last workflow task (`temporal workflow reset`). */
  resetCheckout: 'resetCheckout',
  /** An operator terminates the account's supplier session (`supplier-session[:<prefix>]`). */
  terminateSession: 'terminateSession',
  /** An operator resets it to its last workflow task. */
  resetSession: 'resetSession',
  /** An operator mended the API key: `dropflow account reauth` (the session's `reauth` Update). */
  reauth: 'reauth',
} as const;
export type Disruption = (typeof Disruption)[keyof typeof Disruption];

export type PlannedStep =
  { at: number; type: 'fault'; fault: FaultRequest } | { at: number; type: Disruption };

/** Every call of the account, whatever its endpoint. */
export const ANY_PATH = '*';

/** The calls whose answer, when lost after the supplier acted, must not make it act twice. */
export const COMMITTING_PATHS = [
  createOrderV3.path,
  addCart.path,
  addCartConfirm.path,
  saveGenerateParentOrder.path,
  payBalanceV2.path,
  uploadWaybillInfo.path,
] as const;

/** The calls a checkout batch sends once for all its orders. */
export const CHECKOUT_PATHS = [
  addCart.path,
  addCartConfirm.path,
  saveGenerateParentOrder.path,
  payBalanceV2.path,
] as const;

export const DISPUTE_CREATE_PATH = createDispute.path;

const BUSY_PATHS = [
  createOrderV3.path,
  addCart.path,
  addCartConfirm.path,
  saveGenerateParentOrder.path,
  getOrderDetailBatch.path,
  ANY_PATH,
] as const;

export interface PlanOptions {
  orders: number;
  /** Faults and disruptions fall within this many milliseconds of the start. */
  windowMs: number;
  kills: number;
  latencyCalls: number;
  latencyMs: number;
  /** Arm one daily-quota fault (the order then waits until the next UTC day). */
  quota: boolean;
  /** Terminate and reset the account's coordinator and session while orders are in flight. */
  operatorFaults: boolean;
  /** Refuse the account's token refreshes for a window, then its API key, then reauth. */
  tokenFaults: boolean;
}

/** Orders are submitted over this share of the window, so some are always in flight. */
export const SUBMISSION_SHARE = 0.85;

/** How long the orders are submitted over, and the faults spread over, for `orders` orders. */
export function windowFor(orders: number): number {
  return Math.max(45_000, orders * 2_500);
}

export function faultPlan(random: Random, o: PlanOptions): PlannedStep[] {
  const w = o.windowMs;
  const at = (from: number, to: number): number => Math.round(random.between(from, to) * w);
  const fault = (from: number, to: number, f: FaultRequest): PlannedStep => ({
    at: at(from, to),
    type: 'fault',
    fault: f,
  });
  const perOrders = (every: number): number => 1 + Math.floor(o.orders / every);
  const steps: PlannedStep[] = [];

  // While orders are still coming in: kills evenly spread with a little jitter, the server
  // restart between the middle ones.
  for (let i = 0; i < o.kills; i += 1) {
    const centre = (0.8 * (i + 1)) / (o.kills + 1);
    steps.push({ at: at(centre - 0.03, centre + 0.03), type: Disruption.kill9 });
  }
  steps.push({ at: at(0.45, 0.5), type: Disruption.serverRestart });
  steps.push({ at: at(0.25, 0.35), type: Disruption.tokenExpire });

  // Early, so that orders submitted later meet them.
  for (const path of COMMITTING_PATHS) {
    steps.push(fault(0, 0.35, { path, kind: 'commitThenDrop', times: 1 }));
  }
  for (let i = 0; i < 1 + perOrders(20); i += 1) {
    const path = random.pick(BUSY_PATHS);
    steps.push(fault(0.05, 0.8, { path, kind: 'busy', times: random.int(1, 2) }));
  }
  for (let i = 0; i < perOrders(25); i += 1) {
    steps.push(fault(0.1, 0.7, { path: ANY_PATH, kind: 'rateLimit', times: random.int(5, 8) }));
    steps.push(
      fault(0.1, 0.7, {
        path: getOrderDetailBatch.path,
        kind: 'rateLimit',
        times: random.int(5, 8),
      }),
    );
    steps.push(fault(0.05, 0.8, { path: ANY_PATH, kind: 'reset', times: 1 }));
  }
  steps.push(fault(0.05, 0.5, { path: random.pick(COMMITTING_PATHS), kind: 'reset', times: 1 }));
  for (let i = 0; i < o.latencyCalls; i += 1) {
    steps.push(
      fault(0.1, 0.5, { path: ANY_PATH, kind: 'latency', times: 1, latencyMs: o.latencyMs }),
    );
  }
  if (o.quota)
    steps.push(fault(0.1, 0.3, { path: createOrderV3.path, kind: QUOTA_FAULT, times: 1 }));
  // Drawn last, so that a seed keeps the steps it drew before these existed.
  // Resets first, while the singletons surely run; a terminated one runs again only when needed.
  if (o.operatorFaults) {
    steps.push({ at: at(0.15, 0.25), type: Disruption.resetSession });
    steps.push({ at: at(0.3, 0.4), type: Disruption.resetCheckout });
    steps.push({ at: at(0.45, 0.55), type: Disruption.terminateSession });
    steps.push({ at: at(0.6, 0.7), type: Disruption.terminateCheckout });
  }
  if (o.tokenFaults) steps.push(...tokenFaultSteps(at, w));
  return steps.sort((a, b) => a.at - b.at);
}

/** Shares of the window that the refused refreshes, and the refused key, last. */
export const REFRESH_REFUSED_SHARE = 0.25;
export const KEY_REFUSED_SHARE = 0.2;

/**
 * Each window opens with the tokens expired, so the session meets it at once: first refreshes
 * refused (1600200) while getAccessToken works; then the key refused too, so the session has no
 * way to a token until the window is over and an operator runs `dropflow account reauth`.
 */
function tokenFaultSteps(at: (from: number, to: number) => number, w: number): PlannedStep[] {
  const window = (start: number, forMs: number, path: string, kind: 'rateLimit' | 'keyRefused') =>
    ({ at: start, type: 'fault', fault: { path, kind, times: 1, forMs } }) as const;
  const refreshAt = at(0.1, 0.2);
  const refreshFor = Math.round(REFRESH_REFUSED_SHARE * w);
  const keyAt = at(0.5, 0.6);
  const keyFor = Math.round(KEY_REFUSED_SHARE * w);
  const reauthAfter = at(0.01, 0.03);
  return [
    window(refreshAt, refreshFor, refreshAccessToken.path, 'rateLimit'),
    { at: refreshAt, type: Disruption.tokenExpire },
    window(keyAt, keyFor, getAccessToken.path, 'keyRefused'),
    window(keyAt, keyFor, refreshAccessToken.path, 'rateLimit'),
    { at: keyAt, type: Disruption.tokenExpire },
    { at: keyAt + keyFor + reauthAfter, type: Disruption.reauth },
  ];
}
