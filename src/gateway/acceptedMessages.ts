/**
 * The messageIds of one gateway process's accepted webhooks (Temporal has them), with the outcome
 * each was answered with: a retry or a replay of one is answered the same at no cost. Bounded,
 * oldest forgotten first; per process and lost at a restart, so the recipients' own messageId
 * memory stays the durable guard (docs/gateway.md).
 */
export class AcceptedMessages {
  private readonly outcomes = new Map<string, string>();

  constructor(private readonly limit = 10_000) {}

  get(key: string): string | undefined {
    return this.outcomes.get(key);
  }

  add(key: string, outcome: string): void {
    this.outcomes.delete(key);
    this.outcomes.set(key, outcome);
    if (this.outcomes.size > this.limit) this.outcomes.delete(this.outcomes.keys().next().value!);
  }
}
