/** The most calls in any 1 s (a sliding window: t and t + 1000 do not share one). */
export function busiestSecond(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= 1_000) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}
