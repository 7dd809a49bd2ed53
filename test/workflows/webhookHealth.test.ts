/**
 * The webhook health decisions (src/tracking/webhookHealth.ts), as pure functions: when news that
 * only sweeps bring becomes a gap, how repairs are paced (never more often than their spacing,
 * doubling, then once a day for a supplier that pushes nothing), and that pushes end a gap.
 */
import { describe, expect, it } from 'vitest';

import type { WebhookRepairSettings } from '../../src/tracking/contract.js';
import {
  freshHealth,
  healthView,
  heardPulse,
  heardSweep,
  inGap,
  MAX_REPAIR_SPACING_MS,
  modeOf,
  repairDue,
  repaired,
  sweepEverySeconds,
  TRIES_BEFORE_POLLING_ONLY,
  waitMs,
  type WebhookHealth,
} from '../../src/tracking/webhookHealth.js';

const S: WebhookRepairSettings = {
  callbackUrl: 'https://hooks.example.com/webhooks/supplier',
  gapSeconds: 600,
  registerEverySeconds: 900,
  repairEverySeconds: 30,
};
const T0 = Date.UTC(2026, 10, 26, 10, 0, 0);
const sec = (n: number) => n * 1_000;
const iso = (ms: number) => new Date(ms).toISOString();

const pulse = (at: number, opts: { accepted?: number; failed?: number; told?: boolean } = {}) => ({
  topics: {
    order: {
      accepted: opts.accepted ?? 1,
      failed: opts.failed ?? 0,
      ...((opts.accepted ?? 1) > 0 && { lastAcceptedAt: iso(at) }),
      ...(opts.told === true && { lastToldAt: iso(at) }),
    },
  },
});

describe('webhook health', () => {
  it('news found only by sweeps becomes a gap after the bound; the wait ends when it does', () => {
    let h = heardSweep(freshHealth(), 1, T0);
    expect(inGap(h, S, T0 + sec(599))).toBe(false);
    // The sweeper wakes when the gap bound is crossed, not at its next interval.
    expect(waitMs(h, S, 3_600, T0 + sec(100))).toBe(sec(500));
    expect(modeOf(h, S, T0 + sec(600))).toBe('gap');
    expect(sweepEverySeconds(h, S, 60, T0 + sec(600))).toBe(30);
    h = heardSweep(h, 2, T0 + sec(60));
    expect(h.pollOnlySince).toBe(T0);
    expect(h.polledChanges).toBe(3);
  });

  it('a push that told an order just before the sweep is not a gap (visibility trails it)', () => {
    const h = heardPulse(freshHealth(), pulse(T0 - sec(5), { told: true }), T0).health;
    expect(heardSweep(h, 1, T0).pollOnlySince).toBeUndefined();
    // Longer before, the push was about something else: the sweep's news came late.
    expect(heardSweep(h, 1, T0 + sec(30)).pollOnlySince).toBe(T0 + sec(30));
    // A push that told nothing (an earlier status) does not excuse the sweep's news.
    const quiet = heardPulse(freshHealth(), pulse(T0 - sec(5)), T0).health;
    expect(heardSweep(quiet, 1, T0).pollOnlySince).toBe(T0);
  });

  it('an accepted push ends the gap and the repairs start over', () => {
    let h = heardSweep(freshHealth(), 1, T0);
    h = repaired(h, T0 + sec(600), { ok: true });
    expect(h.tries).toBe(1);
    h = heardPulse(h, pulse(T0 + sec(700)), T0 + sec(700)).health;
    expect(modeOf(h, S, T0 + sec(701))).toBe('healthy');
    expect(h.tries).toBe(0);
    expect(healthView(h, S, 60, sec(2), T0 + sec(701))).toMatchObject({
      mode: 'healthy',
      gapSeconds: 0,
      registrations: 1,
      worstCaseSeconds: 62,
    });
  });

  it('failing acknowledgements are trouble at once, and end with a pulse of accepted pushes', () => {
    const { health, trouble } = heardPulse(
      freshHealth(),
      pulse(T0, { accepted: 3, failed: 2 }),
      T0,
    );
    expect(trouble).toBe(true);
    expect(inGap(health, S, T0)).toBe(true);
    expect(repairDue(health, S, T0)).toBe(true);
    // Known failures are not news again.
    expect(heardPulse(health, pulse(T0, { accepted: 0, failed: 1 }), T0).trouble).toBe(false);
    expect(heardPulse(health, pulse(T0 + sec(1)), T0 + sec(1)).health.failingSince).toBeUndefined();
  });

  it('repairs are paced: the spacing, doubling, then once a day for a supplier that pushes nothing', () => {
    let h: WebhookHealth = heardSweep(freshHealth(), 1, T0);
    let now = T0 + sec(600);
    const times: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      while (!repairDue(h, S, now)) now += sec(1);
      times.push(now);
      h = repaired(h, now, { ok: true });
      now += waitMs(h, S, 60, now);
    }
    const gaps = times.slice(1).map((t, i) => (t - times[i]!) / 1_000);
    expect(gaps.slice(0, TRIES_BEFORE_POLLING_ONLY - 1)).toEqual([900, 1_800]);
    expect(gaps.slice(TRIES_BEFORE_POLLING_ONLY - 1)).toEqual(
      Array(gaps.length - TRIES_BEFORE_POLLING_ONLY + 1).fill(MAX_REPAIR_SPACING_MS / 1_000),
    );
    expect(modeOf(h, S, now)).toBe('pollingOnly');
    // Polling only: sweeps at their own interval again.
    expect(sweepEverySeconds(h, S, 60, now)).toBe(60);
  });
});
