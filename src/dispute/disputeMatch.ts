/**
 * Which dispute of the order's list is the one a createDispute opened. The list may trail the
 * create, and may hold other disputes of the order (earlier ones, or one the supplier's staff
 * opened), so nothing is adopted for being first or open: only by the caller's businessDisputeId
 * when the supplier gives it back, otherwise by reason, lines and a time window around the create.
 * The order is given by the list itself (it is read per order). Sandbox-safe.
 */
import type { DisputeSummary } from './activities.js';

/** A supplier dispute id that was matched to this request: the only id polling accepts. */
export type DisputeId = string & { readonly __brand: 'DisputeId' };

/** How far the supplier's clock may be off the workflow's. */
export const CLOCK_SKEW_MS = 5 * 60_000;

/** What the create sent, to recognise its dispute by. */
export interface CreateSent {
  businessDisputeId: string;
  /** The reason's name, as disputeConfirmInfo offered it. */
  reason: string;
  lineItemIds: string[];
  /** When the create was scheduled (workflow time, epoch ms): the dispute cannot be older. */
  sentAt: number;
}

export type Match =
  | { kind: 'one'; id: DisputeId; dispute: DisputeSummary }
  | { kind: 'none' }
  | { kind: 'several'; ids: string[] };

/** The dispute of `list` that `sent` opened, read at `now` (workflow time, epoch ms). */
export function matchCreated(list: DisputeSummary[], sent: CreateSent, now: number): Match {
  const byId = list.filter((x) => x.businessDisputeId === sent.businessDisputeId);
  const candidates =
    byId.length > 0
      ? byId
      : list.filter((x) => x.businessDisputeId === undefined && looksLike(x, sent, now));
  if (candidates.length === 0) return { kind: 'none' };
  if (candidates.length > 1) return { kind: 'several', ids: candidates.map((x) => x.disputeId) };
  const dispute = candidates[0]!;
  return { kind: 'one', id: dispute.disputeId as DisputeId, dispute };
}

/** Without the caller's id: the same reason and lines, opened between the create and now. */
function looksLike(x: DisputeSummary, sent: CreateSent, now: number): boolean {
  if (x.reason !== sent.reason || x.createdAt === undefined) return false;
  if (x.createdAt < sent.sentAt - CLOCK_SKEW_MS || x.createdAt > now + CLOCK_SKEW_MS) return false;
  const lines = x.lineItemIds ?? [];
  return lines.length === 0 || sameSet(lines, sent.lineItemIds);
}

function sameSet(a: string[], b: string[]): boolean {
  const set = new Set(b);
  return a.length === b.length && a.every((x) => set.has(x));
}

/** The list's entry for an adopted dispute. */
export function entryOf(list: DisputeSummary[], id: DisputeId): DisputeSummary | undefined {
  return list.find((x) => x.disputeId === id);
}
