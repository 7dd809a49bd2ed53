/** Counting the faults of a run: sandbox faults armed and used up, disruptions done. */
import type { PendingFault } from '../localStack/sandboxControls.js';
import type { FaultTally } from './report.js';

export class Tally {
  private readonly armed: Record<string, number> = {};
  private readonly done: Record<string, number> = {};

  /** A sandbox fault armed for `times` calls. */
  arm(kind: string, times: number): void {
    this.armed[kind] = (this.armed[kind] ?? 0) + times;
  }

  /** A disruption done (a kill, a restart, a token expiry), or a fault window opened. */
  count(kind: string): void {
    this.done[kind] = (this.done[kind] ?? 0) + 1;
  }

  /** Calls hit per kind: what was armed less what is still pending at the sandbox. */
  result(pending: readonly PendingFault[]): FaultTally {
    const hit: Record<string, number> = { ...this.done };
    for (const [kind, times] of Object.entries(this.armed)) {
      const left = pending
        .filter((p) => p.kind === kind && p.forMs === undefined)
        .reduce((n, p) => n + p.times, 0);
      hit[kind] = Math.max(0, times - left);
    }
    return { hit, armed: { ...this.armed } };
  }
}
