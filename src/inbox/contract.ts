/**
 * The gateway's two durable destinations besides the order workflows, defined once for workflow
 * code, the worker, the gateway and the CLI (docs/architecture.md §16.3):
 *
 * - `webhookInbox` (id `webhook-inbox`): valid webhook events that reached no order workflow —
 *   an order dropflow does not know (yet), or a message no workflow consumes. Nothing valid is
 *   dropped: the inbox holds them, lists them (`inbox` query) and re-routes them (`replay`).
 * - `catalogueEvents` (id `catalogue-events`): product, variant and stock events, forwarded to an
 *   upstream address when one is configured (CATALOGUE_EVENTS_URL), kept as a bounded recent list.
 *
 * One of each per supplier account: a prefixed queue set (`<prefix>/dropflow-orders`) gets
 * `webhook-inbox:<prefix>` and `catalogue-events:<prefix>`. Both deduplicate by messageId.
 * Sandbox-safe: imports only @temporalio/workflow's definers and the supplier's types.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';

import type { FieldIssue } from '../supplier/errors.js';

export const WEBHOOK_INBOX_WORKFLOW = 'webhookInbox';
export const CATALOGUE_EVENTS_WORKFLOW = 'catalogueEvents';

function perAccount(base: string, accountPrefix: string): string {
  return accountPrefix === '' ? base : `${base}:${accountPrefix}`;
}

/** `webhook-inbox`, or `webhook-inbox:<prefix>` for a prefixed queue set. */
export function webhookInboxId(accountPrefix = ''): string {
  return perAccount('webhook-inbox', accountPrefix);
}

/** `catalogue-events`, or `catalogue-events:<prefix>` for a prefixed queue set. */
export function catalogueEventsId(accountPrefix = ''): string {
  return perAccount('catalogue-events', accountPrefix);
}

/**
 * A webhook message as the gateway received and validated it: the envelope with its parsed
 * `params` (ids as strings, logistics events as a list), and when it arrived.
 */
export interface WebhookEvent {
  messageId: string;
  /** ORDER, LOGISTIC, MAKEUP, PRODUCT, … */
  type: string;
  messageType: string;
  params: unknown;
  /** ISO 8601, the gateway's clock. */
  receivedAt: string;
}

// ---- inbox -----------------------------------------------------------------------------------

export interface HoldRequest {
  event: WebhookEvent;
  /** Why no workflow took it, in words. */
  reason: string;
  /**
   * Whether the inbox re-routes it by itself a few times: for events whose recipient was looked
   * up in visibility, which trails the workflows by a moment.
   */
  autoReplay: boolean;
  /**
   * An ORDER event for an order whose `order:<orderNumber>` workflow never existed: dropflow did
   * not create that order (or not yet). Held for a limited time only (`expiresAt`).
   */
  unknownOrder?: boolean;
}

export interface HeldEvent extends HoldRequest {
  heldAt: string;
  /** Routing attempts since it was held (automatic and `replay`). */
  replays: number;
  /** When the inbox tries it again by itself (ISO 8601); absent when only `replay` will. */
  nextReplayAt?: string;
  /** When the inbox lets it go by itself (ISO 8601): unknown-order events only. */
  expiresAt?: string;
}

export interface InboxView {
  /** Oldest first. */
  held: HeldEvent[];
  /** Events held since the inbox started (duplicates not counted). */
  received: number;
  /** Events delivered by a replay. */
  delivered: number;
  /** Held events dropped to keep the inbox bounded (the oldest first); each one is logged (warn). */
  evicted: number;
  /** Unknown-order events let go after their time in the inbox; each one is logged (warn). */
  expired: number;
  /** Held events let go by an operator (`discard`). */
  discarded: number;
}

export interface ReplayInput {
  /** Only these held events; all of them when left out. */
  messageIds?: string[];
}

export interface ReplayResult {
  /** Handed to their order workflows, and out of the inbox. */
  delivered: string[];
  /** Their orders' workflows had finished: nothing left to tell; out of the inbox. */
  closed: string[];
  /** Still no recipient: kept. */
  stillHeld: string[];
}

export interface DiscardInput {
  messageIds: string[];
  by?: string;
}

/** Where routing a webhook message took it (gateway/routing.ts), for the gateway and the inbox. */
export type RouteOutcome =
  | { outcome: 'delivered'; workflowIds: string[] }
  /** Its orders' workflows have finished: nothing left to tell them. */
  | { outcome: 'closed'; workflowIds: string[] }
  | { outcome: 'catalogue'; workflowId: string }
  /**
   * Nothing an order needs (newsWorth.ts): acknowledged, not told; `duplicate` when this gateway
   * told the order the same news before.
   */
  | { outcome: 'skipped'; reason: string; duplicate?: boolean }
  /**
   * No recipient now; `autoReplay` when the miss may be visibility trailing behind;
   * `unknownOrder` for an ORDER message whose `order:<orderNumber>` workflow never existed (an
   * order dropflow did not create, or not yet: the inbox keeps it for a while, not forever);
   * `foreign` when that workflow id is held by another account's workflow, which was not told.
   */
  | {
      outcome: 'unroutable';
      reason: string;
      autoReplay: boolean;
      unknownOrder?: boolean;
      foreign?: boolean;
    };

/** The inbox's reason for a held unreadable event. */
export function unreadableReason(issues: readonly FieldIssue[]): string {
  return `unreadable: ${issues.map((i) => `${i.field} ${i.rule}`).join('; ')}`;
}

export const holdEventSignal = defineSignal<[HoldRequest]>('holdWebhookEvent');
export const inboxQuery = defineQuery<InboxView>('inbox');
/** Send `{}` to replay every held event. */
export const replayUpdate = defineUpdate<ReplayResult, [ReplayInput]>('replay');
export const discardUpdate = defineUpdate<{ discarded: string[] }, [DiscardInput]>('discard');

// ---- catalogue events ------------------------------------------------------------------------

export interface CatalogueView {
  /** The latest events, newest last (bounded). */
  recent: WebhookEvent[];
  /** Waiting to be forwarded. */
  pending: number;
  received: number;
  forwarded: number;
  /** `upstream` when CATALOGUE_EVENTS_URL is set on the workers, `off` when not, `unknown` before the first try. */
  forwarding: 'upstream' | 'off' | 'unknown';
  /** Pending events dropped because the backlog hit its bound while upstream was unreachable. */
  overflowed: number;
  /** The last forwarding failure, until a forward succeeds again. */
  lastError?: string;
}

export const catalogueEventSignal = defineSignal<[WebhookEvent]>('catalogueEvent');
export const catalogueEventsQuery = defineQuery<CatalogueView>('catalogueEvents');
