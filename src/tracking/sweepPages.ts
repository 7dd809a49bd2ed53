/**
 * The page loop of a tracking sweep, one for both workflows that sweep: the long-running
 * `trackingSweeper` and the one-off `trackingSweep`. It walks visibility page by page and sweeps
 * each page (sweepPage.ts) until the last page, or until the caller wants to continue as new
 * before the next page; then it hands back that page's token.
 */
import { orchestration, orFailed, sweepPage } from './sweepPage.js';
import type { SweepCounts } from './contract.js';
import type { SweepMemory } from './trackingMemory.js';
import { ownAccount } from '../durable/account.js';

export interface SweepPagesInput {
  ordersQueue: string;
  pageSize: number;
  policy: { staleAfterMs: number; missingAfterMs: number };
  /** Written to as pages are swept. */
  memory: SweepMemory;
  /** Written to as pages are swept. */
  counts: SweepCounts;
  /** The page to start from; the first page when left out. */
  pageToken?: string;
  /** Asked after each page that has a next one: true stops there. */
  stopBeforeNextPage: () => boolean;
}

export type SweepPagesEnd =
  | { kind: 'swept' }
  /** Visibility did not answer: the next sweep starts over, with all that is remembered. */
  | { kind: 'listingFailed' }
  | { kind: 'stopped'; pageToken: string };

export async function sweepPages(input: SweepPagesInput): Promise<SweepPagesEnd> {
  const { ordersQueue, pageSize, policy, memory, counts } = input;
  let pageToken = input.pageToken;
  // The sweeper's account's orders only; the default account's inputs stay as they were.
  const account = ownAccount()[0];
  for (;;) {
    const page = await orFailed(
      orchestration().listTrackedOrders({
        ordersQueue,
        pageSize,
        ...(account !== undefined && { account }),
        ...(pageToken !== undefined && { pageToken }),
      }),
      'listTrackedOrders',
      counts,
    );
    if (page === undefined) return { kind: 'listingFailed' };
    await sweepPage(page.orders, memory, counts, policy);
    pageToken = page.nextPageToken;
    if (pageToken === undefined) return { kind: 'swept' };
    if (input.stopBeforeNextPage()) return { kind: 'stopped', pageToken };
  }
}
