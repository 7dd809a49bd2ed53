/**
 * Waiting in tests for something that becomes true a little later (a workflow's query, visibility
 * catching up): one polling loop for all of them, instead of a fixed sleep.
 */

/** How long a probe may keep failing `done` by default. */
export const EVENTUALLY_TIMEOUT_MS = 30_000;
const POLL_MS = 200;

/**
 * Calls `probe` until `done` holds of its value and returns that value; after `timeoutMs` fails
 * with `what` and the last value seen. A `probe` or `done` that throws fails at once (so `done`
 * can stop early on a state the wait can never leave).
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = EVENTUALLY_TIMEOUT_MS,
  pollMs = POLL_MS,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > until) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}: ${show(value)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

function show(value: unknown): string {
  // undefined for undefined and functions, whatever the typing says.
  const json = JSON.stringify(value) as string | undefined;
  const text = json ?? String(value);
  return text.length > 2_000 ? `${text.slice(0, 2_000)}…` : text;
}
