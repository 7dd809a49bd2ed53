/**
 * What the supplier told one order (webhooks, sweeps, its disputes), written by this class alone:
 * the latest facts merged, the messages already taken, and whether a status or tracking is a
 * webhook's word that no answer of the supplier has shown since (a push informs, never ends or
 * pays the order). News of a split or of one parcel goes to the parcels (steps/parcelNews.ts).
 */
import { condition } from '@temporalio/workflow';
import type { DisputeSummaryNews, OrderStatus, SupplierNews } from './contract.js';
import type { OrderSnapshot } from './lookupActivities.js';
import { MakeupStatus } from '../supplier/api/constants.js';
import { Patch } from '../durable/versions.js';
import type { Parcels } from './parcels.js';
import { heardByParcels, PUSHED_KINDS } from './steps/parcelNews.js';

/** How many webhook message ids are remembered for deduplication. */
const SEEN_LIMIT = 1_000;

/** What the order lends its supplier news: what it shows, its timeline, its visibility. */
export interface SupplierWordHost {
  readonly status: Readonly<OrderStatus>;
  note(note: string): void;
  /** Shows where a dispute about the order stands. */
  record(facts: { dispute: DisputeSummaryNews }): void;
  /** Lean mode: what the order shows is written before a wait. */
  flush(): void;
}

export class SupplierWord {
  /** The latest word from the supplier, merged from webhooks and sweeps. */
  readonly news: Omit<SupplierNews, 'messageId' | 'kind'> & {
    connected?: boolean;
    toppedUp?: boolean;
  } = {};
  /** Grows with every new message, so waits can tell that something arrived. */
  version = 0;
  private readonly seen: string[] = [];
  /** `news.orderStatus` came from a webhook (see statusFromPush). */
  private statusPushed = false;
  /** `news.trackNumber` or `news.trackingUrl` came from a webhook (see trackingFromPush). */
  private trackingPushed = false;
  /** The latest status the supplier's own answers showed (sweeps, look-ups). */
  private shownStatus: string | undefined;

  constructor(
    private readonly parcels: Parcels,
    private readonly host: SupplierWordHost,
  ) {}

  /** Applies a webhook or sweep message once; returns false for a duplicate. */
  hear(news: SupplierNews): boolean {
    if (this.seen.includes(news.messageId)) return false;
    this.seen.push(news.messageId);
    if (this.seen.length > SEEN_LIMIT) this.seen.shift();
    if (heardByParcels(this.parcels, news, this.host.status.svcOrderId, Patch.Parcels)) {
      this.version += 1;
      return true;
    }
    const { messageId: _id, kind, ...facts } = news;
    for (const [k, v] of Object.entries(facts) as [string, unknown][]) {
      if (v !== undefined) (this.news as Record<string, unknown>)[k] = v;
    }
    if (facts.orderStatus !== undefined) {
      this.statusPushed = PUSHED_KINDS.has(kind);
      if (!this.statusPushed) this.shownStatus = facts.orderStatus;
    }
    if (facts.trackNumber !== undefined || facts.trackingUrl !== undefined) {
      this.trackingPushed = PUSHED_KINDS.has(kind);
    }
    if (kind === 'connected') this.news.connected = true;
    if (news.dispute) {
      const { parcel } = news.dispute;
      this.host.record({ dispute: news.dispute });
      if (parcel !== undefined) this.parcels.disputed(parcel, news.dispute.stage);
      this.host.note(
        `dispute ${news.dispute.disputeId ?? news.dispute.businessDisputeId}` +
          `${parcel !== undefined ? ` on parcel ${parcel}` : ''}: ${news.dispute.stage}`,
      );
    }
    if (kind === 'makeup' && facts.makeupStatus === MakeupStatus.Paid) this.news.toppedUp = true;
    this.version += 1;
    return true;
  }

  /** Something else happened that a wait for news must see (the store cancelled). */
  woken(): void {
    this.version += 1;
  }

  /** Waits for the supplier's next news (or the timeout: false), visible as it stands. */
  async waitForNews(seen: number, timeout?: number): Promise<boolean> {
    this.host.flush();
    if (timeout === undefined) {
      await condition(() => this.version !== seen);
      return true;
    }
    return condition(() => this.version !== seen, timeout);
  }

  /**
   * Whether `news.orderStatus` is a webhook's word that no answer of the supplier (a sweep, a
   * look-up) has shown since: it may inform, never end or pay the order (steps/confirmNews.ts).
   */
  get statusFromPush(): boolean {
    return this.statusPushed;
  }

  /**
   * Whether the tracking in `news` is a webhook's word that no answer of the supplier has shown
   * since, and differs from what the order shows: it reaches the status and the store only once
   * the supplier shows it (a forged number or link would reach the customer).
   */
  get trackingFromPush(): boolean {
    const n = this.news;
    const s = this.host.status;
    return (
      this.trackingPushed && (n.trackNumber !== s.trackNumber || n.trackingUrl !== s.trackingUrl)
    );
  }

  /**
   * The supplier's own answer about the shipment (`found`), or none: its tracking replaces what
   * a push said; without an answer, the order keeps the tracking it showed.
   */
  trackingShown(found: OrderSnapshot | undefined): void {
    this.trackingPushed = false;
    const n = this.news;
    const s = this.host.status;
    const trackNumber = found?.trackNumber ?? s.trackNumber;
    const trackingUrl = found === undefined ? s.trackingUrl : found.trackingUrl;
    const logisticName = found?.logisticName ?? s.logisticName;
    delete n.trackNumber;
    delete n.trackingUrl;
    delete n.logisticName;
    Object.assign(n, {
      ...(trackNumber !== undefined && { trackNumber }),
      ...(trackingUrl !== undefined && { trackingUrl }),
      ...(logisticName !== undefined && { logisticName }),
    });
  }

  /** The supplier's own answer about the order (a look-up): it replaces what a push said. */
  shows(found: OrderSnapshot | undefined): void {
    this.statusPushed = false;
    if (found?.orderStatus !== undefined) this.shownStatus = found.orderStatus;
    if (found?.subStatus !== undefined) this.news.subStatus = found.subStatus;
    if (this.shownStatus === undefined) delete this.news.orderStatus;
    else this.news.orderStatus = this.shownStatus;
  }

  /**
   * What a push said (`claim`) is not confirmed by the supplier: noted without acting on it, and
   * forgotten (its status gives way to the supplier's; a connection is not taken).
   */
  pushNotConfirmed(claim: string, reason: string, found: OrderSnapshot | undefined): void {
    this.host.note(`a webhook said ${claim}; not acted on: ${reason}`);
    this.shows(found);
    this.news.connected = false;
  }

  /** Forgets an earlier top-up: the next one is news. */
  awaitTopUp(): void {
    this.news.toppedUp = false;
  }
}
