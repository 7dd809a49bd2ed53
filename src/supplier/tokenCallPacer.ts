/**
 * Token-call slots of one account in one process, handed out in call order: a call starts an
 * interval after the previous one started and after its answer came back (or later, when the
 * supplier asked for more). The supplier counts arrivals, and a call held up on its way (a new
 * connection, a busy event loop) would otherwise arrive closer to the next one than the spacing.
 */
export class TokenCallPacer {
  private next = 0;

  constructor(private readonly intervalMs: number) {}

  async take(): Promise<void> {
    const now = Date.now();
    const at = Math.max(now, this.next);
    this.next = at + this.intervalMs;
    if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now));
  }

  /** The call that took the last slot was answered (or failed) now. */
  answered(waitMs = 0): void {
    this.next = Math.max(this.next, Date.now() + Math.max(this.intervalMs, waitMs));
  }
}
