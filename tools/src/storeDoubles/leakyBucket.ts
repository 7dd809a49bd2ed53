/**
 * A bucket of points that refills at a steady rate, as both platforms' throttles work: Shopify's
 * GraphQL Admin API spends a query's cost from it (`extensions.cost.throttleStatus`), a WooCommerce
 * host's rate limiter spends one point per request. A request that needs more than is there is
 * refused and spends nothing.
 */
export class LeakyBucket {
  private level: number;
  private at: number;

  constructor(
    readonly capacity: number,
    readonly restorePerSecond: number,
    private readonly now: () => number = Date.now,
  ) {
    this.level = capacity;
    this.at = now();
  }

  available(): number {
    const now = this.now();
    this.level = Math.min(
      this.capacity,
      this.level + ((now - this.at) / 1000) * this.restorePerSecond,
    );
    this.at = now;
    return this.level;
  }

  /** Spends `points` when there are enough, and says whether it did. */
  take(points: number): boolean {
    if (this.available() < points) return false;
    this.level -= points;
    return true;
  }

  /** Gives back what a request spent beyond its actual cost. */
  refund(points: number): void {
    this.level = Math.min(this.capacity, this.available() + points);
  }

  /** Empties the bucket (a control of the doubles: the next requests are throttled). */
  drain(): void {
    this.available();
    this.level = 0;
  }

  /** Seconds until `points` are available (0 when they are). */
  secondsUntil(points: number): number {
    const missing = points - this.available();
    return missing <= 0 ? 0 : missing / this.restorePerSecond;
  }
}
