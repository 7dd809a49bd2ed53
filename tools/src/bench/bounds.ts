/**
 * What the account's general rate allows: a flow-B order costs 5 calls on it unbatched (create,
 * addCart, addCartConfirm, saveGenerateParentOrder, payBalanceV2); batched, the create stays per
 * order and the other four are made once per batch.
 */
export const CALLS_PER_UNBATCHED_ORDER = 5;
export const CALLS_PER_BATCHED_ORDER = 1;
export const CALLS_PER_BATCH = 4;

const SECONDS_PER_HOUR = 3_600;

/** Orders per hour to PAID at `ratePerSecond`; `batchSize` undefined: unbatched. */
export function boundOrdersPerHour(ratePerSecond: number, batchSize?: number): number {
  const callsPerOrder =
    batchSize === undefined
      ? CALLS_PER_UNBATCHED_ORDER
      : CALLS_PER_BATCHED_ORDER + CALLS_PER_BATCH / batchSize;
  return (ratePerSecond * SECONDS_PER_HOUR) / callsPerOrder;
}
