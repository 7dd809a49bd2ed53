/** Waiting for something to become true, and pauses between scheduled chaos steps. */

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

/**
 * Calls `probe` every `everyMs` until it returns a value other than undefined; a probe that throws
 * counts as "not yet". After `timeoutMs` fails with `what` and the last error.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  { timeoutMs, everyMs = 250 }: { timeoutMs: number; everyMs?: number },
): Promise<T> {
  const until = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > until) {
      const why = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await delay(everyMs);
  }
}
