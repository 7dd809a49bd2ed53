/**
 * Bounding the Temporal calls of one request: the calls inside carry a gRPC deadline
 * (`client.withDeadline`), and the answer comes no later than the deadline whatever the
 * connection does (a timer races it). The supplier wants its answer within 3 seconds.
 */
import type { Client } from '@temporalio/client';

export class DeadlineExceeded extends Error {
  override readonly name = 'DeadlineExceeded';
  constructor(readonly ms: number) {
    super(`no answer from Temporal within ${ms} ms`);
  }
}

/** `work`, or DeadlineExceeded once `ms` have passed (the work itself is not stopped). */
export async function raceDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new DeadlineExceeded(ms));
    }, ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `fn`'s Temporal calls with a gRPC deadline, and answers by then whatever happens. */
export function withinDeadline<T>(client: Client, ms: number, fn: () => Promise<T>): Promise<T> {
  return raceDeadline(client.withDeadline(Date.now() + ms, fn), ms);
}
