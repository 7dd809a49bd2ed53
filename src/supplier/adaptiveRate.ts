/**
 * The rate this process allows itself for one supplier account, adapted to the supplier's
 * refusals (additive increase, multiplicative decrease): each 1600200 halves it, down to a floor;
 * each accepted call raises it by a step, back up to the configured rate.
 *
 * Each process adapts on its own. When the account is over its budget, the supplier refuses
 * whichever calls come next, so every busy process of the account sees refusals and slows down;
 * a process that sends nothing meanwhile keeps its rate (and meets the first refusal itself).
 */

/** The lowest rate, as a share of the configured one. */
const FLOOR_SHARE = 1 / 4;
/** The rise per accepted call, as a share of the configured rate: back from the floor in 6. */
const STEP_SHARE = 1 / 8;

export class AdaptiveRate {
  private rate: number;
  private readonly floor: number;
  private readonly step: number;
  /** When the rate was last halved: refusals of calls sent before it are already accounted for. */
  private cutAt = -Infinity;

  constructor(readonly configured: number) {
    this.rate = configured;
    this.floor = configured * FLOOR_SHARE;
    this.step = configured * STEP_SHARE;
  }

  /** Calls per second allowed now. */
  get perSecond(): number {
    return this.rate;
  }

  /** The supplier refused a call sent at `sentAt` (epoch ms) as over the account's rate. */
  refused(sentAt: number, now = Date.now()): void {
    // Calls already on their way when the rate was cut were sent at the old rate: one cut for them.
    if (sentAt < this.cutAt) return;
    this.rate = Math.max(this.floor, this.rate / 2);
    this.cutAt = now;
  }

  /** The supplier's rate limit let a call through. */
  accepted(): void {
    this.rate = Math.min(this.configured, this.rate + this.step);
  }
}
