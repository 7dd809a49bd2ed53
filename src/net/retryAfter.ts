/**
 * A Retry-After header in ms: delay-seconds, or an HTTP date (0 when it has passed). Undefined
 * when absent or unreadable.
 */
export function parseRetryAfter(
  value: string | string[] | undefined,
  now: number = Date.now(),
): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (text === undefined || text === '') return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Only a date with letters in it: Date.parse reads bare numbers like "-1" or "1.5" as years.
  if (!/[A-Za-z]/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
